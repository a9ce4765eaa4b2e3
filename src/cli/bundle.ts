/**
 * `tiller bundle <out.js> [--traced] [--encrypted]`: builds Tiller's workflow bundle once, minified and
 * without source maps, for workers that should not bundle at start (`TILLER_WORKFLOW_BUNDLE=<file> tiller
 * worker`, the Dockerfile). `--traced` adds the twin `<out>.traced.js` with the OpenTelemetry workflow
 * interceptors (run when OTEL_TRACES_EXPORTER is set), `--encrypted` the twins `<out>.encrypted.js` (and
 * `<out>.traced.encrypted.js`) with the encoding failure converter (run when TILLER_ENCRYPTION_KEYS is set).
 */
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { ENCODED_FAILURES_PATH, WELL_FORMED_FAILURES_PATH } from '../codec/encoded-failures';
import { WORKFLOW_TRACING_MODULE } from '../observability/tracing';
import { PRELOAD_MODULES, workflowsPath } from '../worker/plugin';
import { encryptedBundlePath, tracedBundlePath } from './worker';

export interface BundleOptions {
  traced?: boolean;
  encrypted?: boolean;
}

async function write(out: string, workflowInterceptorModules: string[], encrypted: boolean): Promise<void> {
  const bundle = await bundleWorkflowCode({
    workflowsPath,
    failureConverterPath: encrypted ? ENCODED_FAILURES_PATH : WELL_FORMED_FAILURES_PATH,
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

/** Writes the plain bundle to `out`, and its twins as the options ask. */
export async function writeWorkflowBundles(out: string, opts: BundleOptions = {}): Promise<void> {
  await write(out, [], false);
  if (opts.traced) await write(tracedBundlePath(out), [WORKFLOW_TRACING_MODULE], false);
  if (opts.encrypted) await write(encryptedBundlePath(out), [], true);
  if (opts.traced && opts.encrypted) {
    await write(encryptedBundlePath(tracedBundlePath(out)), [WORKFLOW_TRACING_MODULE], true);
  }
}
