/**
 * One real Temporal dev server per test run (with Tiller's search attributes and tuning), and one workflow
 * bundle built once and shared by every test worker.
 */
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { startDevServer, type DevServer } from '../../src/testing/dev-server';
import { WELL_FORMED_FAILURES_PATH } from '../../src/codec/encoded-failures';
import { PRELOAD_MODULES, workflowsPath } from '../../src/worker/plugin';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureTemporal } = require('../../scripts/ensure-temporal.js');

declare global {
  var __TILLER_DEV_SERVER__: DevServer | undefined;
}

export default async function globalSetup(): Promise<void> {
  const { cli, testServer } = ensureTemporal({ quiet: true });
  // Tiller's tuned dev server (src/testing/dev-server.ts); TILLER_TEST_DEV_SERVER=stock runs the suite on
  // the CLI's defaults instead, to compare the suite's wall time.
  const server = await startDevServer({
    cli,
    ...(process.env.TILLER_TEST_DEV_SERVER === 'stock' && { tuning: 'stock' as const }),
  });
  globalThis.__TILLER_DEV_SERVER__ = server;
  process.env.TILLER_TEST_TEMPORAL_ADDRESS = server.address;
  process.env.TILLER_TEST_TEMPORAL_CLI = cli;
  process.env.TILLER_TEST_TIME_SKIPPING_SERVER = testServer;

  const dir = path.resolve(__dirname, '../../test-artifacts');
  fs.mkdirSync(dir, { recursive: true });
  const bundle = await bundleWorkflowCode({
    workflowsPath,
    preloadModules: [...PRELOAD_MODULES],
    failureConverterPath: WELL_FORMED_FAILURES_PATH,
    logger: { ...quietLogger } as never,
  });
  const codePath = path.join(dir, 'workflow-bundle.js');
  fs.writeFileSync(codePath, bundle.code);
  process.env.TILLER_TEST_BUNDLE = codePath;
}

const noop = () => undefined;
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: console.warn, error: console.error };
