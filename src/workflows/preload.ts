/**
 * What every turn in a worker shares instead of loading its own copy: the worker runs all workflows
 * in one reusable V8 context, where each workflow gets its own instance of every bundled module unless
 * the bundle preloads it (`preloadModules`; see PRELOAD_MODULES in src/worker/plugin.ts). zod, and Tiller's
 * own schemas (src/core/schemas/index.ts: a few hundred zod objects, which a turn would otherwise build for
 * itself), are loaded here once, through the same imports the workflow code uses, so the bundle's
 * modules are the shared ones. Preloaded modules are frozen: nothing with per-workflow state may be
 * imported here (src/core/schemas/ holds none; it imports only zod and src/core/bounds.ts's constants).
 */
import * as zod from 'zod';
import * as schemas from '../core/schemas';

// zod completes its global config (default locale, memoizer) on the first schema and parse: let that
// happen now, before the shared modules are frozen.
zod
  .object({ kind: zod.enum(['a']), items: zod.array(zod.union([zod.string(), zod.number()])) })
  .safeParse({ kind: 'a', items: ['x', 1] });

// A module namespace's exports are getters: settle each export.
for (const name of Object.keys(schemas)) settle(schemas[name as keyof typeof schemas]);

/**
 * zod writes to a schema the first time it is used: it binds methods (`safeParse`, …) and builds
 * derived members on their first read, as own properties, and its memoizer unwraps a container's
 * parse on its first run. On a frozen, shared schema each of those writes would throw. So every
 * schema reachable from `value` is used once here, while it can still be written:
 * test/unit/preload.test.ts freezes them as the SDK does and parses valid and hostile inputs.
 */
function settle(value: unknown, seen = new Set<unknown>()): void {
  if (value === null || typeof value !== 'object' || seen.has(value)) return;
  seen.add(value);
  if (value instanceof zod.ZodType) {
    try {
      (value as unknown as Internal)._zod.run({ value: undefined, issues: [] }, { async: false });
    } catch {
      // an input it refuses: only the first run's writes matter here
    }
    for (let proto = Object.getPrototypeOf(value); proto && proto !== Object.prototype;) {
      for (const key of Reflect.ownKeys(proto)) {
        if (Object.getOwnPropertyDescriptor(proto, key)?.get)
          void (value as unknown as Record<PropertyKey, unknown>)[key];
      }
      proto = Object.getPrototypeOf(proto);
    }
  }
  for (const key of Reflect.ownKeys(value)) {
    const own = Object.getOwnPropertyDescriptor(value, key);
    if (own && 'value' in own) settle(own.value, seen);
  }
}

/** zod's internal run of one schema (a payload in, a payload out). */
interface Internal {
  _zod: { run(payload: { value: unknown; issues: unknown[] }, ctx: { async: boolean }): unknown };
}

export { schemas, zod };
