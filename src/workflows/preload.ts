/**
 * What every turn in a worker shares instead of loading its own copy: the worker runs all workflows
 * in one reusable V8 context, where each workflow gets its own instance of every bundled module unless
 * the bundle preloads it (`preloadModules`; see PRELOAD_MODULES in src/plugin.ts). zod — stateless,
 * and most of what a turn's modules weigh — is loaded here once, through the same ESM import the
 * workflow code uses, so the bundle's zod modules are the shared ones. Preloaded modules are frozen:
 * nothing with per-workflow state may be imported here.
 */
import * as zod from 'zod';

// zod completes its global config (default locale, memoizer) on the first schema and parse: let that
// happen now, before the shared modules are frozen.
zod
  .object({ kind: zod.enum(['a']), items: zod.array(zod.union([zod.string(), zod.number()])) })
  .safeParse({ kind: 'a', items: ['x', 1] });

export { zod };
