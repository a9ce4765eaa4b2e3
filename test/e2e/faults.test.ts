/**
 * Faults survived (issue 6, rows 2–4), with real worker processes (`test/support/worker-main.ts`)
 * killed with `kill -9` and a real dev server stopped and started again on its SQLite file:
 * - a worker killed while a heartbeating tool runs: a new worker retries it promptly (with default
 *   options, and with the tool's own `heartbeatTimeout`) with the same idempotency key, and the side
 *   effect (deduplicated by that key) happens once;
 * - a worker killed while a model call streams: the call is retried, its usage counted once, and the
 *   conversation holds one assistant message for that step;
 * - a server restart while turns wait for approvals and one is mid-tool: nothing lost or duplicated.
 *
 * Every wait is on an observable event (a log line, a recorded model request, the `state` query,
 * visibility), never a fixed sleep.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { TillerClient } from '../../src/client';
import type { TurnState } from '../../src/core/state';
import { freePort, startDevServer, type DevServer } from '../../src/testing/dev-server';
import {
  startScriptedModel,
  type ScriptedModel,
  type ScriptFn,
  type ScriptStep,
} from '../../src/testing/scripted-model';
import { awaitingApproval, waitForState } from '../support/harness';
import { startTsChild, type Child } from '../support/processes';
import type { SlowToolLogLine } from '../support/worker-main';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
});

/** Polls `probe` until it returns a value (not undefined/false); throws `message` after `timeoutMs`. */
async function until<T>(
  message: string | (() => string),
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(typeof message === 'string' ? message : message());
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Scene {
  dir: string;
  workspace: string;
  log: string;
  effects: string;
  gate: string;
  taskQueue: string;
  model: ScriptedModel;
  connection: Connection;
  tiller: TillerClient;
  /** Starts a worker process and resolves once it polls. */
  worker(opts?: { gated?: boolean; heartbeatTimeout?: string }): Promise<Child>;
  logLines(): SlowToolLogLine[];
  effectLines(): { key: string; text: string }[];
}

async function scene(address: string, script: ScriptStep[] | ScriptFn): Promise<Scene> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-faults-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const workspace = path.join(dir, 'workspace');
  fs.mkdirSync(workspace);
  const log = path.join(dir, 'slow.log');
  const effects = path.join(dir, 'effects.log');
  const gate = path.join(dir, 'gate');
  const taskQueue = `faults-${randomUUID()}`;
  const model = await startScriptedModel({ script });
  cleanups.push(() => model.close());
  const connection = await Connection.connect({ address });
  cleanups.push(() => connection.close());
  const tiller = new TillerClient(new Client({ connection }), taskQueue);
  const readLines = <T>(file: string): T[] =>
    fs.existsSync(file)
      ? fs
          .readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as T)
      : [];
  return {
    dir,
    workspace,
    log,
    effects,
    gate,
    taskQueue,
    model,
    connection,
    tiller,
    async worker({ gated = false, heartbeatTimeout }: { gated?: boolean; heartbeatTimeout?: string } = {}) {
      const child = startTsChild('test/support/worker-main.ts', {
        TEMPORAL_ADDRESS: address,
        TILLER_TASK_QUEUE: taskQueue,
        OPENAI_BASE_URL: model.url,
        TILLER_WORKSPACE: workspace,
        TILLER_WORKFLOW_BUNDLE: process.env.TILLER_TEST_BUNDLE,
        TILLER_TEST_SLOW_TOOL_LOG: log,
        TILLER_TEST_SLOW_TOOL_EFFECTS: effects,
        ...(gated && { TILLER_TEST_SLOW_TOOL_GATE: gate }),
        ...(heartbeatTimeout && { TILLER_TEST_SLOW_TOOL_HEARTBEAT_TIMEOUT: heartbeatTimeout }),
      });
      cleanups.push(() => child.kill('SIGKILL'));
      await child.waitFor(/^ready$/m, 120_000);
      return child;
    },
    logLines: () => readLines<SlowToolLogLine>(log),
    effectLines: () => readLines<{ key: string; text: string }>(effects),
  };
}

/**
 * A script for several concurrent turns: each turn's steps are keyed by its user input, and the step
 * is the number of assistant messages already in the conversation (so interleaving does not matter).
 */
function scriptByInput(turns: Record<string, ScriptStep[]>): ScriptFn {
  return ({ body }) => {
    const messages = (body as { messages: { role: string; content?: unknown }[] }).messages;
    const input = messages.find((m) => m.role === 'user')?.content;
    const steps = typeof input === 'string' ? turns[input] : undefined;
    const step = steps?.[messages.filter((m) => m.role === 'assistant').length];
    return step ?? { error: { status: 500, message: `no scripted step for ${JSON.stringify(input)}` } };
  };
}

const assistantMessages = (body: any) => (body.messages as { role: string }[]).filter((m) => m.role === 'assistant');
const toolMessage = (body: any, id: string) =>
  (body.messages as { role: string; tool_call_id?: string; content?: string }[]).find(
    (m) => m.role === 'tool' && m.tool_call_id === id,
  )?.content;

/**
 * kill -9 while `slow_write` runs (it has applied its effect and heartbeats), start a new worker: the
 * retry must arrive within `retryWithinMs` of the kill, with the same idempotency key, and find the
 * effect applied; the turn completes with one tool call.
 */
async function killMidTool(opts: { heartbeatTimeout?: string; retryWithinMs: number; hint: string }) {
  const s = await scene(process.env.TILLER_TEST_TEMPORAL_ADDRESS!, [
    {
      toolCalls: [{ id: 'w1', name: 'slow_write', arguments: { text: 'hello', ms: 3_000 } }],
      usage: { prompt_tokens: 50, completion_tokens: 5 },
    },
    { content: 'written', usage: { prompt_tokens: 60, completion_tokens: 6 } },
  ]);
  const workerOpts = opts.heartbeatTimeout ? { heartbeatTimeout: opts.heartbeatTimeout } : {};
  const first = await s.worker(workerOpts);
  const turnId = `fault-tool-${randomUUID().slice(0, 8)}`;
  const key = `${turnId}:w1`;
  await s.tiller.startTurn({ agent: 'writer', input: 'write hello', turnId });

  // The first attempt has applied its side effect and is still running (heartbeating) when the worker dies.
  await until(
    'the first attempt of slow_write to apply its effect',
    () => s.logLines().some((l) => l.event === 'applied' && l.attempt === 1),
    90_000,
  );
  const killedAt = Date.now();
  await first.kill('SIGKILL');
  const second = await s.worker(workerOpts);

  const retry = await until(
    () =>
      `slow_write was not retried within ${opts.retryWithinMs / 1000} s of kill -9 ` +
      `(log: ${JSON.stringify(s.logLines())}); ${opts.hint}`,
    () => s.logLines().find((l) => l.event === 'start' && l.attempt === 2),
    opts.retryWithinMs,
  );
  expect(Date.now() - killedAt).toBeLessThan(opts.retryWithinMs);

  const result = await s.tiller.result(turnId);
  expect(result.status).toBe('completed');
  expect(result.output).toBe('written');
  expect(result.usage).toEqual({ inputTokens: 110, outputTokens: 11, totalTokens: 121, modelCalls: 2 });

  // Both attempts got the same key, from two different processes; the retry found the effect applied.
  const lines = s.logLines();
  expect(lines.map((l) => [l.event, l.attempt, l.key])).toEqual([
    ['start', 1, key],
    ['applied', 1, key],
    ['start', 2, key],
    ['duplicate', 2, key],
    ['done', 2, key],
  ]);
  expect(lines[0]!.pid).toBe(first.process.pid);
  expect(retry.pid).toBe(second.process.pid);
  expect(s.effectLines()).toEqual([{ key, text: 'hello' }]);

  const state = await s.tiller.state(turnId);
  expect(state.toolCalls).toEqual([expect.objectContaining({ id: 'w1', name: 'slow_write', status: 'succeeded' })]);
  expect(state.events.filter((e) => e.type === 'TOOL_STARTED')).toHaveLength(1);
  expect(toolMessage(s.model.requests[1]!.body, 'w1')).toBe('wrote hello (already applied)');
}

test('kill -9 mid-tool (a heartbeating tool, default options): a new worker retries it within 45 s with the same idempotency key; the side effect happens once', async () => {
  await killMidTool({
    retryWithinMs: 45_000,
    hint:
      'tool activities get a 30 s heartbeatTimeout by default (toolOptions in src/workflows/activities.ts) and runTool ' +
      'heartbeats while the tool runs; without both a dead worker is only noticed at the 10-minute startToCloseTimeout',
  });
}, 240_000);

test("kill -9 mid-tool (the tool's own heartbeatTimeout: 5s): retried within 20 s with the same idempotency key; the side effect happens once", async () => {
  await killMidTool({
    heartbeatTimeout: '5s',
    retryWithinMs: 20_000,
    hint: "the tool's heartbeatTimeout did not reach the runTool activity options",
  });
}, 240_000);

test('kill -9 mid-model-call: the call is retried, its usage counted once, and one assistant message per step', async () => {
  const s = await scene(process.env.TILLER_TEST_TEMPORAL_ADDRESS!, [
    {
      toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'a.txt' } }],
      usage: { prompt_tokens: 100, completion_tokens: 10 },
    },
    // Call 2, first attempt: answered only after the worker is dead (its socket closes, the answer is dropped).
    {
      delayMs: 600_000,
      toolCalls: [{ id: 'lost', name: 'read_file', arguments: { path: 'a.txt' } }],
      usage: { prompt_tokens: 9_000, completion_tokens: 900 },
    },
    // Call 2, the retry.
    {
      toolCalls: [{ id: 'r2', name: 'read_file', arguments: { path: 'b.txt' } }],
      usage: { prompt_tokens: 200, completion_tokens: 20 },
    },
    { content: 'read both', usage: { prompt_tokens: 300, completion_tokens: 30 } },
  ]);
  fs.writeFileSync(path.join(s.workspace, 'a.txt'), 'alpha');
  fs.writeFileSync(path.join(s.workspace, 'b.txt'), 'beta');
  const first = await s.worker();
  const turnId = `fault-model-${randomUUID().slice(0, 8)}`;
  await s.tiller.startTurn({ agent: 'assistant', input: 'read a.txt and b.txt', turnId });

  // The second model call is in flight at the scripted model when the worker dies.
  await until('the second model request', () => s.model.requests.length >= 2, 90_000);
  const before = await waitForState(s.tiller, turnId, (st) => st.usage.modelCalls === 1);
  expect(before.usage).toEqual({ inputTokens: 100, outputTokens: 10, totalTokens: 110, modelCalls: 1 });
  await first.kill('SIGKILL');
  await s.worker();

  const result = await s.tiller.result(turnId);
  expect(result.status).toBe('completed');
  expect(result.output).toBe('read both');
  // The killed attempt's numbers (9000/900) never count; each successful call counts once.
  expect(result.usage).toEqual({ inputTokens: 600, outputTokens: 60, totalTokens: 660, modelCalls: 3 });

  const requests = s.model.requests.map((r) => r.body);
  expect(requests).toHaveLength(4);
  // The retry saw exactly the conversation the killed attempt saw.
  expect(requests[2].messages).toEqual(requests[1].messages);
  // The next call sees one assistant message per step: call 1's and the retried call 2's, nothing from the lost one.
  const assistants = assistantMessages(requests[3]);
  expect(assistants).toHaveLength(2);
  expect(assistants.map((m: any) => m.tool_calls.map((t: any) => t.id))).toEqual([['r1'], ['r2']]);
  expect(toolMessage(requests[3], 'r2')).toBe('beta');
  expect(requests[3].messages.filter((m: any) => m.role === 'tool').map((m: any) => m.tool_call_id)).toEqual([
    'r1',
    'r2',
  ]);

  const state = await s.tiller.state(turnId);
  const called = state.events.filter((e) => e.type === 'MODEL_CALLED') as { call?: number }[];
  expect(called.map((e) => e.call)).toEqual([1, 2, 3]);
  expect(state.toolCalls.map((c) => [c.id, c.status])).toEqual([
    ['r1', 'succeeded'],
    ['r2', 'succeeded'],
  ]);
}, 300_000);

test('server kill -9 and restart: turns paused on approvals are listed again and resume; a turn mid-tool completes; nothing lost or duplicated', async () => {
  const cli = process.env.TILLER_TEST_TEMPORAL_CLI!;
  const dbDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-db-'));
  cleanups.push(() => fs.rmSync(dbDir, { recursive: true, force: true }));
  const dbFilename = path.join(dbDir, 'temporal.db');
  const port = await freePort();
  let server: DevServer = await startDevServer({ cli, dbFilename, port });
  cleanups.push(() => server.stop());
  const address = server.address;

  const inputs = { p1: 'delete p1.txt', p2: 'delete p2.txt', m: 'write across the restart' };
  const s = await scene(
    address,
    scriptByInput({
      [inputs.p1]: [
        { toolCalls: [{ id: 'p1-del', name: 'delete_file', arguments: { path: 'p1.txt' } }] },
        { content: 'p1 gone' },
      ],
      [inputs.p2]: [
        { toolCalls: [{ id: 'p2-del', name: 'delete_file', arguments: { path: 'p2.txt' } }] },
        { content: 'p2 gone' },
      ],
      [inputs.m]: [
        { toolCalls: [{ id: 'm1', name: 'slow_write', arguments: { text: 'survivor' } }] },
        { content: 'written' },
      ],
    }),
  );
  fs.writeFileSync(path.join(s.workspace, 'p1.txt'), 'one');
  fs.writeFileSync(path.join(s.workspace, 'p2.txt'), 'two');
  await s.worker({ gated: true });
  const id = randomUUID().slice(0, 8);
  const turns = { p1: `restart-p1-${id}`, p2: `restart-p2-${id}`, m: `restart-m-${id}` };
  await s.tiller.startTurn({ agent: 'assistant', input: inputs.p1, turnId: turns.p1 });
  await s.tiller.startTurn({ agent: 'assistant', input: inputs.p2, turnId: turns.p2 });
  await s.tiller.startTurn({ agent: 'writer', input: inputs.m, turnId: turns.m });

  const pausedBefore: Record<string, TurnState> = {};
  for (const t of [turns.p1, turns.p2]) pausedBefore[t] = await waitForState(s.tiller, t, awaitingApproval, 90_000);
  // The mid-tool turn holds in slow_write (until the gate file exists), its effect already applied.
  await until('slow_write to apply its effect', () => s.logLines().some((l) => l.event === 'applied'), 90_000);
  const listed = async (tiller: TillerClient) => {
    const ids = (await tiller.pending()).map((p) => p.turnId);
    return [turns.p1, turns.p2].every((t) => ids.includes(t)) ? ids : undefined;
  };
  await until('both paused turns in visibility before the restart', () => listed(s.tiller), 60_000);

  // kill -9: nothing gets flushed on the way out (the server's SQLite runs with WAL, synchronous=normal).
  const exited = new Promise((resolve) => server.process.once('exit', resolve));
  server.process.kill('SIGKILL');
  await exited;
  server = await startDevServer({ cli, dbFilename, port });
  expect(server.address).toBe(address);

  // A fresh client, as a human arriving after the restart would use.
  const connection = await Connection.connect({ address });
  cleanups.push(() => connection.close());
  const after = new TillerClient(new Client({ connection }), s.taskQueue);
  const ids = await until('both paused turns in visibility after the restart', () => listed(after), 90_000);
  expect(ids).not.toContain(turns.m);
  for (const t of [turns.p1, turns.p2]) {
    const state = await waitForState(after, t, awaitingApproval, 90_000);
    expect(state.pendingApprovals).toEqual(pausedBefore[t]!.pendingApprovals);
    expect(state.events).toEqual(pausedBefore[t]!.events);
  }
  const midTool = await waitForState(after, turns.m, () => true, 90_000);
  expect(midTool.status).toBe('running');
  expect(midTool.toolCalls).toEqual([expect.objectContaining({ id: 'm1', status: 'running' })]);

  // Decisions sent after the restart resume the paused turns; the tool finishes and reports.
  await expect(after.approve(turns.p1, 'p1-del', { approver: 'after-restart' })).resolves.toMatchObject({
    id: 'p1-del',
    approved: true,
  });
  await expect(after.deny(turns.p2, 'p2-del', { approver: 'after-restart', reason: 'keep it' })).resolves.toMatchObject(
    { id: 'p2-del', approved: false },
  );
  fs.writeFileSync(s.gate, 'go');

  const [r1, r2, rm] = await Promise.all([after.result(turns.p1), after.result(turns.p2), after.result(turns.m)]);
  expect([r1.status, r1.output]).toEqual(['completed', 'p1 gone']);
  expect([r2.status, r2.output]).toEqual(['completed', 'p2 gone']);
  expect([rm.status, rm.output]).toEqual(['completed', 'written']);
  expect(fs.existsSync(path.join(s.workspace, 'p1.txt'))).toBe(false);
  expect(fs.existsSync(path.join(s.workspace, 'p2.txt'))).toBe(true);
  expect(r1.toolCalls).toEqual([
    expect.objectContaining({
      id: 'p1-del',
      status: 'succeeded',
      decision: expect.objectContaining({ approver: 'after-restart' }),
    }),
  ]);
  expect(r2.toolCalls).toEqual([expect.objectContaining({ id: 'p2-del', status: 'denied' })]);

  // The mid-tool call's effect was applied once. Its worker survived the restart and normally reports
  // the first attempt; should the outage outlast a heartbeat timeout, a retry carries the same key and
  // finds the effect applied.
  const key = `${turns.m}:m1`;
  const lines = s.logLines();
  expect([...new Set(lines.map((l) => l.key))]).toEqual([key]);
  expect(lines.filter((l) => l.event === 'applied')).toEqual([expect.objectContaining({ attempt: 1 })]);
  expect(lines.filter((l) => l.event === 'duplicate')).toHaveLength(
    lines.filter((l) => l.event === 'start').length - 1,
  );
  expect(s.effectLines()).toEqual([{ key, text: 'survivor' }]);
  const sawM1 = s.model.requests.filter((r) => toolMessage(r.body, 'm1') !== undefined);
  expect(sawM1).toHaveLength(1);
  expect(toolMessage(sawM1[0]!.body, 'm1')).toMatch(/^wrote survivor/);
  // Each turn made exactly its two model calls: nothing was re-run by the restart.
  expect([r1.usage.modelCalls, r2.usage.modelCalls, rm.usage.modelCalls]).toEqual([2, 2, 2]);
  expect(s.model.requests).toHaveLength(6);
}, 400_000);
