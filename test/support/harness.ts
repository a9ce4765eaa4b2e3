/**
 * Per-file test harness: connections to the run's dev server, a scripted model on loopback, a temp
 * workspace, and workers built with `createWorker` exactly as users build theirs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { TillerClient } from '../../src/client';
import { turnResultOf } from '../../src/core/failures';
import type { TurnResult } from '../../src/core/schemas';
import type { TurnState } from '../../src/core/state';
import {
  startScriptedModel,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptFn,
  type ScriptStep,
} from '../../src/testing/scripted-model';
import { createWorker, type CreateWorkerOptions } from '../../src/worker/create-worker';
import { fileTools } from '../../src/tools/files';
import { recordFixture } from './fixtures';

let runtimeInstalled = false;
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
    });
  } catch {
    // already installed in this process
  }
}

export interface Harness {
  address: string;
  taskQueue: string;
  model: ScriptedModel;
  workspace: string;
  native: NativeConnection;
  client: Client;
  tiller: TillerClient;
  /** Builds a worker on this file's task queue, with the scripted model and the workspace file tools. */
  worker(opts?: Partial<CreateWorkerOptions>): Promise<Worker>;
  /** Runs `fn` while a worker polls; shuts the worker down afterwards. */
  withWorker<T>(fn: () => Promise<T>, opts?: Partial<CreateWorkerOptions>): Promise<T>;
  turnId(label: string): string;
  close(): Promise<void>;
}

export function bundle(): { codePath: string } {
  const codePath = process.env.TILLER_TEST_BUNDLE;
  if (!codePath) throw new Error('TILLER_TEST_BUNDLE is not set: run through jest (global setup builds the bundle)');
  return { codePath };
}

export async function createHarness(modelOpts: ScriptedModelOptions = {}): Promise<Harness> {
  quietRuntime();
  const address = process.env.TILLER_TEST_TEMPORAL_ADDRESS;
  if (!address)
    throw new Error('TILLER_TEST_TEMPORAL_ADDRESS is not set: run through jest (global setup starts the server)');
  const taskQueue = `test-${randomUUID()}`;
  const model = await startScriptedModel(modelOpts);
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-ws-'));
  const native = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const tiller = new TillerClient(client, taskQueue);
  const openai = new OpenAI({ baseURL: model.url, apiKey: 'test', maxRetries: 0 });

  const worker = (opts: Partial<CreateWorkerOptions> = {}) => {
    const { readFile, deleteFile } = fileTools(() => workspace);
    return createWorker({
      connection: native,
      taskQueue,
      openai,
      model: 'scripted',
      tools: [readFile, deleteFile],
      workflowBundle: bundle(),
      ...opts,
    });
  };
  return {
    address,
    taskQueue,
    model,
    workspace,
    native,
    client,
    tiller,
    worker,
    async withWorker(fn, opts) {
      const w = await worker(opts);
      return w.runUntil(fn);
    },
    turnId: (label) => `${label}-${randomUUID().slice(0, 8)}`,
    async close() {
      await model.close();
      await connection.close();
      await native.close();
      fs.rmSync(workspace, { recursive: true, force: true });
    },
  };
}

/**
 * The file's harness, with the hooks every file that shares one writes: created before the file's tests,
 * closed after them, and the scripted model's recorded requests cleared before each test (unless
 * `resetRequests: false`). What it returns reads through to that harness, so a file writes
 * `const h = useHarness();` at its top and uses `h` in its hooks and tests (not at module level: the
 * harness exists from `beforeAll` on).
 */
export function useHarness(modelOpts: ScriptedModelOptions = {}, { resetRequests = true } = {}): Harness {
  let current: Harness | undefined;
  beforeAll(async () => {
    current = await createHarness(modelOpts);
  });
  afterAll(async () => {
    await current?.close();
  });
  if (resetRequests) {
    beforeEach(() => {
      current!.model.requests.length = 0;
    });
  }
  return new Proxy({} as Harness, {
    get(_, key) {
      if (!current) throw new Error(`the harness is not up: h.${String(key)} is read before beforeAll created it`);
      return Reflect.get(current, key);
    },
  });
}

/** How a turn ended: its state and, when it failed, the failure's type and message and the result it carries. */
export interface TurnEnd {
  turnId: string;
  state: TurnState;
  type?: string;
  message?: string;
  result?: TurnResult;
}

/**
 * Starts a turn of `agent` on `input` and waits for its end (a worker must be polling); with `fixture`,
 * records its history under that name (test/support/fixtures.ts).
 */
export async function runToEnd(h: Harness, agent: string, input: string, fixture?: string): Promise<TurnEnd> {
  const turnId = h.turnId(agent);
  await h.tiller.startTurn({ agent, input, turnId });
  const err = await h.client.workflow
    .getHandle(turnId)
    .result()
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  const state = await h.tiller.state(turnId);
  if (fixture) await recordFixture(h.client, turnId, fixture);
  const cause = err instanceof WorkflowFailedError ? (err.cause as { type?: string; message: string }) : undefined;
  return {
    turnId,
    state,
    type: cause?.type,
    message: cause?.message,
    result: err ? turnResultOf(cause ?? err) : undefined,
  };
}

/** Polls the `state` query until `predicate` holds (the turn's own observable state, not a sleep). */
export async function waitForState(
  tiller: TillerClient,
  turnId: string,
  predicate: (s: TurnState) => boolean,
  timeoutMs = 30_000,
): Promise<TurnState> {
  const deadline = Date.now() + timeoutMs;
  let last: TurnState | undefined;
  for (;;) {
    try {
      last = await tiller.state(turnId);
      if (predicate(last)) return last;
    } catch (err) {
      // The first workflow task may not have run yet.
      if (Date.now() > deadline) throw err;
    }
    if (Date.now() > deadline) {
      throw new Error(`state of ${turnId} did not reach the expected condition; last: ${JSON.stringify(last)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const awaitingApproval = (s: TurnState) => s.status === 'awaiting_approval';

/**
 * Starts a turn of `agent` (with the workspace's `delete_file`) that waits for a decision on its call
 * `del`, deleting `file` (written first); its id is pushed to `started` so the file can cancel it after.
 */
export async function pausedDeleteTurn(
  h: Harness,
  agent: string,
  label: string,
  file: string,
  started: string[],
): Promise<string> {
  fs.writeFileSync(path.join(h.workspace, file), 'keep me\n');
  h.model.setScript(
    scriptByInput({
      [label]: [{ toolCalls: [{ id: 'del', name: 'delete_file', arguments: { path: file } }] }, { content: 'ok' }],
    }),
  );
  const turnId = h.turnId(label);
  started.push(turnId);
  await h.tiller.startTurn({ agent, input: label, turnId });
  await waitForState(h.tiller, turnId, awaitingApproval);
  return turnId;
}

/**
 * One script per turn, chosen by the turn's input (the last user message of the request): turns of
 * different tests never take each other's steps. A request no route matches gets a 400, which fails
 * its turn at once (a 5xx would be retried).
 */
export function scriptByInput(routes: Record<string, ScriptStep[]>): ScriptFn {
  const seen: Record<string, number> = {};
  return ({ body }) => {
    const input = [...(body.messages ?? [])].reverse().find((m: { role: string }) => m.role === 'user')?.content;
    const steps = typeof input === 'string' ? routes[input] : undefined;
    if (!steps)
      return { error: { status: 400, message: `scripted model: no script for input ${JSON.stringify(input)}` } };
    const index = (seen[input!] = (seen[input!] ?? -1) + 1);
    return steps[index] ?? { error: { status: 400, message: `scripted model: the script for ${input} has ended` } };
  };
}
