/**
 * Per-file harness of the real-model suite: the run's dev server and llama-server (global setup), a
 * temp workspace with the file tools, a worker built with `createWorker` on an OpenAI client pointed at
 * llama-server through a wire tap (./wire-tap.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import type { AgentDefinition } from '../../../src/agents/define';
import { TillerClient } from '../../../src/client';
import { fileTools } from '../../../src/tools/files';
import { createWorker } from '../../../src/worker/create-worker';
import { bundle, quietRuntime } from '../../support/harness';
import { createWireTap, type WireTap } from './wire-tap';

export interface RealHarness {
  /** The model's name as llama-server reports it. */
  model: string;
  workspace: string;
  tap: WireTap;
  tiller: TillerClient;
  client: Client;
  /** Runs `fn` while a worker with `agents` (and read_file, delete_file) polls. */
  withWorker<T>(agents: AgentDefinition[], fn: () => Promise<T>): Promise<T>;
  turnId(label: string): string;
  close(): Promise<void>;
}

export function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run through \`npm run e2e:real-model\` (its global setup sets it)`);
  return value;
}

/**
 * A llama-server of the test's own instead of the run's shared one: `baseURL` (same model), or `url` and
 * `model` (another context size).
 */
export async function createRealHarness(
  opts: { baseURL?: string; url?: string; model?: string } = {},
): Promise<RealHarness> {
  quietRuntime();
  const address = env('TILLER_TEST_TEMPORAL_ADDRESS');
  const baseURL = opts.baseURL ?? opts.url ?? env('TILLER_TEST_LLAMA_URL');
  const model = opts.model ?? env('TILLER_TEST_LLAMA_MODEL');
  const taskQueue = `real-model-${randomUUID()}`;
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-real-'));
  const native = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const tiller = new TillerClient(client, taskQueue);
  const tap = createWireTap();
  const openai = new OpenAI({ baseURL, apiKey: 'none', maxRetries: 0, fetch: tap.fetch });

  const worker = (agents: AgentDefinition[]): Promise<Worker> => {
    const { readFile, deleteFile } = fileTools(() => workspace);
    return createWorker({
      connection: native,
      taskQueue,
      openai,
      model,
      agents,
      tools: [readFile, deleteFile],
      workflowBundle: bundle(),
    });
  };
  return {
    model,
    workspace,
    tap,
    tiller,
    client,
    async withWorker(agents, fn) {
      return (await worker(agents)).runUntil(fn);
    },
    turnId: (label) => `${label}-${randomUUID().slice(0, 8)}`,
    async close() {
      await connection.close();
      await native.close();
      fs.rmSync(workspace, { recursive: true, force: true });
    },
  };
}
