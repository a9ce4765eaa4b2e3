/**
 * `tiller bundle` from a checkout without a build (the Dockerfile, the soak, the cluster and the versioning
 * test's "old code" fixture in test/fixtures/bundles/ use it); see src/cli/bundle.ts.
 *
 *   tsx scripts/build-workflow-bundle.ts <out.js> [--traced] [--encrypted]
 */
import { writeWorkflowBundles } from '../src/cli/bundle';

const args = process.argv.slice(2);
const out = args.find((a) => !a.startsWith('--'));
if (!out) {
  process.stderr.write('usage: tsx scripts/build-workflow-bundle.ts <out.js> [--traced] [--encrypted]\n');
  process.exit(1);
}
writeWorkflowBundles(out, { traced: args.includes('--traced'), encrypted: args.includes('--encrypted') }).catch(
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
