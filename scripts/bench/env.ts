/**
 * One benchmark environment: a dev server (stock, tuned in memory, or tuned on a SQLite file — see
 * `Storage`), the scripted model on loopback, a workflow bundle built once, clients, and workers built
 * with `createWorker` exactly as users build theirs (the bench's agents and instant tools, the scripted
 * model). Tiller clients share the workers' connection, so turns start eagerly, as they would in any
 * process that runs both.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { TillerClient } from '../../src/client';
import { WELL_FORMED_FAILURES_PATH } from '../../src/codec/encoded-failures';
import { startDevServer, type DevServer } from '../../src/testing/dev-server';
import { startScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model';
import { createWorker, type CreateWorkerOptions } from '../../src/worker/create-worker';
import { PRELOAD_MODULES, workflowsPath } from '../../src/worker/plugin';
import { benchAgents, benchScript, benchTools, Recorder } from './fixture';
import type { Storage } from './options';

export const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/bench');

let runtimeInstalled = false;
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
  });
}

const noop = () => undefined;
/** The bundler's logger, quiet but for errors (every bundle the bench builds). */
export const QUIET_BUNDLE_LOGGER = {
  log: noop,
  trace: noop,
  debug: noop,
  info: noop,
  warn: noop,
  error: console.error,
};

export interface Bundle {
  code: string;
  codePath: string;
}

export async function buildBundle(): Promise<Bundle> {
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    preloadModules: [...PRELOAD_MODULES],
    failureConverterPath: WELL_FORMED_FAILURES_PATH,
    logger: QUIET_BUNDLE_LOGGER as never,
  });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const codePath = path.join(ARTIFACTS, 'workflow-bundle.js');
  fs.writeFileSync(codePath, code);
  return { code, codePath };
}

/** The scripted model on loopback with the bench script; shared by the floor and the durable runs. */
export async function startBenchModel(rec: Recorder): Promise<ScriptedModel> {
  const holder: { model?: ScriptedModel } = {};
  holder.model = await startScriptedModel({ script: benchScript(rec, () => holder.model) });
  return holder.model;
}

export function openaiFor(model: ScriptedModel): OpenAI {
  return new OpenAI({ baseURL: model.url, apiKey: 'bench', maxRetries: 0 });
}

export interface BenchEnv {
  storage: Storage;
  server: DevServer;
  cli: string;
  model: ScriptedModel;
  rec: Recorder;
  bundle: Bundle;
  native: NativeConnection;
  /** On its own gRPC connection (large histories need its 256 MiB message limit). */
  client: Client;
  /** On the workers' connection: what TillerClients use (eager workflow start). */
  nativeClient: Client;
  resultBytes: number;
  /** A fresh task queue and a TillerClient on it (eager start unless `eagerStart: false`). */
  queue(label: string, opts?: { eagerStart?: boolean }): { taskQueue: string; tiller: TillerClient };
  worker(taskQueue: string, worker?: CreateWorkerOptions['worker']): Promise<Worker>;
  close(): Promise<void>;
}

export async function startEnv(opts: {
  storage: Storage;
  cli: string;
  model: ScriptedModel;
  rec: Recorder;
  bundle: Bundle;
  resultBytes: number;
}): Promise<BenchEnv> {
  quietRuntime();
  let dbDir: string | undefined;
  let dbFilename: string | undefined;
  if (opts.storage === 'sqlite') {
    dbDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-bench-db-'));
    dbFilename = path.join(dbDir, 'temporal.db');
  }
  const server = await startDevServer({
    cli: opts.cli,
    ...(opts.storage === 'stock' && { tuning: 'stock' as const }),
    ...(dbFilename && { dbFilename }),
  });
  const native = await NativeConnection.connect({ address: server.address });
  // Long Tiller and peer histories are larger than gRPC's default 4 MiB per message.
  const connection = await Connection.connect({
    address: server.address,
    channelArgs: { 'grpc.max_receive_message_length': 256 * 2 ** 20 },
  });
  const client = new Client({ connection, namespace: server.namespace });
  const nativeClient = new Client({ connection: native, namespace: server.namespace });
  const openai = openaiFor(opts.model);
  const tools = benchTools(opts.resultBytes, opts.rec);
  const agents = benchAgents();
  return {
    storage: opts.storage,
    server,
    cli: opts.cli,
    model: opts.model,
    rec: opts.rec,
    bundle: opts.bundle,
    native,
    client,
    nativeClient,
    resultBytes: opts.resultBytes,
    queue(label, queueOpts = {}) {
      const taskQueue = `bench-${label}-${randomUUID().slice(0, 8)}`;
      return { taskQueue, tiller: new TillerClient(nativeClient, taskQueue, queueOpts) };
    },
    worker(taskQueue, worker) {
      return createWorker({
        connection: native,
        namespace: server.namespace,
        taskQueue,
        agents,
        tools,
        openai,
        model: 'scripted',
        workflowBundle: { code: opts.bundle.code },
        ...(worker && { worker }),
      });
    },
    async close() {
      await connection.close();
      await native.close();
      await server.stop();
      if (dbDir) fs.rmSync(dbDir, { recursive: true, force: true });
    },
  };
}
