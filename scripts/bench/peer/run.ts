/**
 * Runs the peer for Tiller's bench (scripts/bench/sections/peer.ts forks this with IPC): a worker with
 * the official `OpenAIAgentsPlugin` against the bench's dev server and scripted model, then turns of
 * N tool steps one after the other. Step times are taken by the bench on the model server's side;
 * this process reports the turns' ids, client-side wall times and versions.
 */
import fs from 'node:fs';
import path from 'node:path';
import { setTracingDisabled } from '@openai/agents-core';
import { OpenAIProvider } from '@openai/agents-openai';
import { Client, Connection } from '@temporalio/client';
import { OpenAIAgentsPlugin } from '@temporalio/openai-agents';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import * as activities from './activities';

interface PeerConfig {
  address: string;
  namespace: string;
  taskQueue: string;
  modelUrl: string;
  /** Inputs of the turns to run, in order (the bench's plan inputs); the first ones are warm-up. */
  inputs: { turnId: string; input: string; steps: number }[];
  resultBytes: number;
}

function version(name: string): string {
  const file = path.join(__dirname, 'node_modules', name, 'package.json');
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
}

async function main(): Promise<void> {
  const cfg = JSON.parse(process.env.BENCH_PEER ?? '{}') as PeerConfig;
  setTracingDisabled(true);
  activities.setResultBytes(cfg.resultBytes);
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
  });
  const plugin = new OpenAIAgentsPlugin({
    modelProvider: new OpenAIProvider({
      openAIClient: new OpenAI({ baseURL: cfg.modelUrl, apiKey: 'bench', maxRetries: 0 }),
      useResponses: false,
    }),
    modelParams: { startToCloseTimeout: '5 minutes' },
  });
  const noop = () => undefined;
  const logger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: console.error };
  const bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('./workflows'),
    plugins: [plugin],
    logger: logger as never,
    // agents-core has a dynamic `import()` (its sandbox agent); webpack 5 splits it into a chunk whose
    // loader needs an automatic publicPath, which throws when the bundle is loaded in the workflow
    // sandbox ("Automatic publicPath is not supported in this browser"). Inline dynamic imports.
    webpackConfigHook: (config) => ({
      ...config,
      module: {
        ...config.module,
        parser: {
          ...config.module?.parser,
          javascript: { ...config.module?.parser?.javascript, dynamicImportMode: 'eager' },
        },
      },
    }),
  });
  const native = await NativeConnection.connect({ address: cfg.address });
  const worker = await Worker.create({
    connection: native,
    namespace: cfg.namespace,
    taskQueue: cfg.taskQueue,
    workflowBundle: bundle,
    activities,
    plugins: [plugin],
  });
  const connection = await Connection.connect({ address: cfg.address });
  const client = new Client({ connection, namespace: cfg.namespace, plugins: [plugin] });
  const turns = await worker.runUntil(async () => {
    const out: { turnId: string; wallMs: number; output: string }[] = [];
    for (const t of cfg.inputs) {
      const started = performance.now();
      const output = await client.workflow.execute('peerTurn', {
        taskQueue: cfg.taskQueue,
        workflowId: t.turnId,
        args: [t.input, t.steps + 5],
      });
      out.push({ turnId: t.turnId, wallMs: performance.now() - started, output: String(output) });
    }
    return out;
  });
  const versions = Object.fromEntries(
    ['@temporalio/openai-agents', '@temporalio/worker', '@openai/agents-core', '@openai/agents-openai', 'openai'].map(
      (n) => [n, version(n)],
    ),
  );
  process.send?.({ type: 'done', turns, versions });
  await connection.close();
  await native.close();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.send?.({ type: 'error', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    process.exit(1);
  },
);
