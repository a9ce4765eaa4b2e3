/**
 * Builds the workflow bundle once, minified and without source maps, for workers that should not
 * bundle at start (`TILLER_WORKFLOW_BUNDLE=<file> tiller worker`) and for the versioning test's
 * "old code" fixture (test/fixtures/bundles/).
 *
 *   tsx scripts/build-workflow-bundle.ts <out.js>            # the plain bundle
 *   tsx scripts/build-workflow-bundle.ts <out.js> --traced   # and its twin <out>.traced.js with the
 *                                                            # OpenTelemetry workflow interceptors, which
 *                                                            # `tiller worker` runs when OTEL_TRACES_EXPORTER is set
 */
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { tracedBundlePath } from '../src/cli/worker';
import { WORKFLOW_TRACING_MODULE } from '../src/observability/tracing';
import { PRELOAD_MODULES, workflowsPath } from '../src/worker';

async function write(out: string, workflowInterceptorModules: string[]): Promise<void> {
  const bundle = await bundleWorkflowCode({
    workflowsPath,
    preloadModules: [...PRELOAD_MODULES],
    workflowInterceptorModules,
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

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const out = args.find((a) => !a.startsWith('--'));
  if (!out) throw new Error('usage: tsx scripts/build-workflow-bundle.ts <out.js> [--traced]');
  await write(out, []);
  if (args.includes('--traced')) await write(tracedBundlePath(out), [WORKFLOW_TRACING_MODULE]);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : err}\n`);
  process.exit(1);
});
