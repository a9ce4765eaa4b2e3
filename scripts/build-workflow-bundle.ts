/**
 * Builds the workflow bundle once, minified and without source maps, for workers that should not
 * bundle at start (`TILLER_WORKFLOW_BUNDLE=<file> tiller worker`) and for the versioning test's
 * "old code" fixture (test/fixtures/bundles/). Usage: tsx scripts/build-workflow-bundle.ts <out.js>
 */
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowsPath } from '../src/worker';

async function main(): Promise<void> {
  const out = process.argv[2];
  if (!out) throw new Error('usage: tsx scripts/build-workflow-bundle.ts <out.js>');
  const bundle = await bundleWorkflowCode({
    workflowsPath,
    webpackConfigHook: (config) => ({
      ...config,
      devtool: 'inline-nosources-cheap-module-source-map',
      optimization: { ...config.optimization, minimize: true },
    }),
  });
  fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  fs.writeFileSync(out, bundle.code);
  process.stdout.write(`wrote ${out} (${bundle.code.length} bytes)\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : err}\n`);
  process.exit(1);
});
