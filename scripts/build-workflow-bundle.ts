/**
 * Builds the workflow bundle once, minified and without source maps, for workers that should not
 * bundle at start (`TILLER_WORKFLOW_BUNDLE=<file> tiller worker`) and for the versioning test's
 * "old code" fixture (test/fixtures/bundles/).
 *
 *   tsx scripts/build-workflow-bundle.ts <out.js>            # the plain bundle
 *   tsx scripts/build-workflow-bundle.ts <out.js> --traced   # and its twin <out>.traced.js with the
 *                                                            # OpenTelemetry workflow interceptors, which
 *                                                            # `tiller worker` runs when OTEL_TRACES_EXPORTER is set
 *   … --encrypted                                            # and the twins <out>.encrypted.js (and
 *                                                            # <out>.traced.encrypted.js) with the encoding failure
 *                                                            # converter, which it runs when TILLER_ENCRYPTION_KEYS is set
 */
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { encryptedBundlePath, tracedBundlePath } from '../src/cli/worker';
import { ENCODED_FAILURES_PATH } from '../src/codec/encoded-failures';
import { WORKFLOW_TRACING_MODULE } from '../src/observability/tracing';
import { PRELOAD_MODULES, workflowsPath } from '../src/worker';

async function write(out: string, workflowInterceptorModules: string[], encrypted = false): Promise<void> {
  const bundle = await bundleWorkflowCode({
    workflowsPath,
    ...(encrypted && { failureConverterPath: ENCODED_FAILURES_PATH }),
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
  if (!out) throw new Error('usage: tsx scripts/build-workflow-bundle.ts <out.js> [--traced] [--encrypted]');
  const traced = args.includes('--traced');
  const encrypted = args.includes('--encrypted');
  await write(out, []);
  if (traced) await write(tracedBundlePath(out), [WORKFLOW_TRACING_MODULE]);
  if (encrypted) await write(encryptedBundlePath(out), [], true);
  if (traced && encrypted) await write(encryptedBundlePath(tracedBundlePath(out)), [WORKFLOW_TRACING_MODULE], true);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : err}\n`);
  process.exit(1);
});
