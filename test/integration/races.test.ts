/**
 * Decisions under races (issue 6, rows 5–6), with in-process workers on the run's dev server:
 * - two clients (two connections) decide the same call at the same moment, one approving and one
 *   denying: exactly one decision is recorded, the other is rejected with a clear message, and the
 *   tool runs at most once; the same update id sent twice returns the first result;
 * - a decision that arrives while the model call that will request the approval is still running is
 *   rejected as unknown (update: with a clear message, nothing written; signal: DECISION_REJECTED) and
 *   never approves the call later.
 */
import { Client, Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import OpenAI from 'openai';
import { z } from 'zod';
import { DecisionRejectedError, TillerClient } from '../../src/client';
import type { RecordedDecision } from '../../src/core/schemas';
import { defineAgent } from '../../src/agents/define';
import type { ScriptFn, ScriptStep } from '../../src/testing/scripted-model';
import { defineTool } from '../../src/tools/define';
import { awaitingApproval, createHarness, waitForState, type Harness } from '../support/harness';

let h: Harness;
let otherConnection: Connection;
/** A second client on its own connection: another person, another terminal. */
let other: TillerClient;

/** Executions of `guarded_write`, by idempotency key. */
const runs = new Map<string, number>();
/** Turns whose `guarded_write` holds until released (by workflow id). */
const holds = new Map<string, Promise<void>>();

/** Waits for `release`, or until `signal` aborts (a worker shutting down after a failed test never hangs). */
function heldUntil(release: Promise<void> | undefined, signal: AbortSignal | undefined): Promise<void> {
  if (!release) return Promise.resolve();
  return new Promise<void>((resolve) => {
    release.then(resolve, resolve);
    signal?.addEventListener('abort', () => resolve(), { once: true });
  });
}

const guardedWrite = defineTool({
  name: 'guarded_write',
  description: 'Write a line; needs approval.',
  input: z.object({ text: z.string() }),
  async execute({ text }, ctx) {
    runs.set(ctx.idempotencyKey, (runs.get(ctx.idempotencyKey) ?? 0) + 1);
    await heldUntil(holds.get(ctx.workflowId), ctx.signal);
    return `wrote ${text}`;
  },
});
const racer = defineAgent({
  name: 'racer',
  instructions: 'You write lines, with approval.',
  tools: ['guarded_write'],
  approvals: { guarded_write: true },
});
const workerOpts = { agents: [racer], tools: [guardedWrite] };

beforeAll(async () => {
  h = await createHarness();
  otherConnection = await Connection.connect({ address: h.address });
  other = new TillerClient(new Client({ connection: otherConnection }), h.taskQueue);
});
afterAll(async () => {
  await otherConnection?.close();
  await h?.close();
});

/** Each turn's steps keyed by its user input; the step is the number of assistant messages so far. */
function scriptByInput(turns: Record<string, ScriptStep[]>): ScriptFn {
  return ({ body }) => {
    const messages = (body as { messages: { role: string; content?: unknown }[] }).messages;
    const input = messages.find((m) => m.role === 'user')?.content;
    const steps = typeof input === 'string' ? turns[input] : undefined;
    const step = steps?.[messages.filter((m) => m.role === 'assistant').length];
    return step ?? { error: { status: 500, message: `no scripted step for ${JSON.stringify(input)}` } };
  };
}

const writeThenAnswer = (id: string, text: string): ScriptStep[] => [
  { toolCalls: [{ id, name: 'guarded_write', arguments: { text } }] },
  { content: `finished ${text}` },
];

/** Updates accepted into the turn's history (a rejected update leaves no trace there). */
async function acceptedUpdates(turnId: string): Promise<temporal.api.history.v1.IHistoryEvent[]> {
  const history = await h.client.workflow.getHandle(turnId).fetchHistory();
  return (history.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
}

/** State keeps a call's decision under the call, without repeating its id. */
function asRecordedInState({ id: _id, ...decision }: RecordedDecision): Omit<RecordedDecision, 'id'> {
  return decision;
}

async function until(what: string, probe: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

test('racing decisions from two clients: exactly one is recorded, the other is rejected clearly, the tool runs at most once', async () => {
  // Several turns race at once, alternating who sends first, so both orders (and both "one
  // activation" and "two activations") get exercised.
  const labels = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5'];
  h.model.setScript(scriptByInput(Object.fromEntries(labels.map((l) => [`race ${l}`, writeThenAnswer(`${l}-w`, l)]))));
  await h.withWorker(async () => {
    const turns = labels.map((l) => ({ label: l, turnId: h.turnId(`race-${l}`), callId: `${l}-w` }));
    for (const t of turns) await h.tiller.startTurn({ agent: 'racer', input: `race ${t.label}`, turnId: t.turnId });
    for (const t of turns) await waitForState(h.tiller, t.turnId, awaitingApproval, 60_000);

    await Promise.all(
      turns.map(async ({ turnId, callId }, i) => {
        const approve = () => h.tiller.decide(turnId, { id: callId, approved: true, approver: 'alice' });
        const deny = () => other.decide(turnId, { id: callId, approved: false, approver: 'bob', reason: 'no' });
        const outcomes = await Promise.allSettled(i % 2 === 0 ? [approve(), deny()] : [deny(), approve()]);
        const won = outcomes.filter((o): o is PromiseFulfilledResult<RecordedDecision> => o.status === 'fulfilled');
        const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect(lost[0]!.reason).toBeInstanceOf(DecisionRejectedError);
        expect((lost[0]!.reason as Error).message).toMatch(
          new RegExp(`tool call ${callId} (was already decided|is not pending \\(status: \\w+\\))`),
        );
        const decision = won[0]!.value;
        expect(decision).toMatchObject({ id: callId, via: 'update' });

        const result = await h.tiller.result(turnId);
        expect(result.status).toBe('completed');
        expect(result.toolCalls).toEqual([
          expect.objectContaining({
            id: callId,
            status: decision.approved ? 'succeeded' : 'denied',
            decision: asRecordedInState(decision),
          }),
        ]);
        const state = await h.tiller.state(turnId);
        const decided = state.events.filter((e) => e.type === 'TOOL_APPROVED' || e.type === 'TOOL_DENIED');
        expect(decided).toEqual([
          expect.objectContaining({ type: decision.approved ? 'TOOL_APPROVED' : 'TOOL_DENIED' }),
        ]);
        expect(state.events.filter((e) => e.type === 'DECISION_REJECTED')).toEqual([]);
        expect(state.events.filter((e) => e.type === 'TOOL_STARTED')).toHaveLength(decision.approved ? 1 : 0);
        expect(runs.get(`${turnId}:${callId}`) ?? 0).toBe(decision.approved ? 1 : 0);
        expect(await acceptedUpdates(turnId)).toHaveLength(1);
      }),
    );
  }, workerOpts);
});

test('the same update id sent twice (even concurrently, even with another payload) returns the first result; one decision', async () => {
  h.model.setScript(scriptByInput({ 'dedupe one': writeThenAnswer('d1', 'one') }));
  await h.withWorker(async () => {
    const turnId = h.turnId('dedupe');
    const hold = deferred();
    holds.set(turnId, hold.promise);
    await h.tiller.startTurn({ agent: 'racer', input: 'dedupe one', turnId });
    await waitForState(h.tiller, turnId, awaitingApproval, 60_000);

    const updateId = `decide-${turnId}`;
    // Two clients retrying the same request at the same moment.
    const [first, concurrent] = await Promise.all([
      h.tiller.decide(turnId, { id: 'd1', approved: true, approver: 'alice' }, updateId),
      other.decide(turnId, { id: 'd1', approved: true, approver: 'alice' }, updateId),
    ]);
    expect(first).toMatchObject({ id: 'd1', approved: true, approver: 'alice', via: 'update' });
    expect(concurrent).toEqual(first);

    // While the approved tool still runs (held), a resend with the same id — here carrying a deny —
    // returns the first result and changes nothing.
    await waitForState(h.tiller, turnId, (s) => s.toolCalls[0]?.status === 'running', 60_000);
    const resent = await other.decide(turnId, { id: 'd1', approved: false, approver: 'mallory' }, updateId);
    expect(resent).toEqual(first);
    // A new update id is a new decision, and is rejected: the call is no longer pending.
    await expect(other.decide(turnId, { id: 'd1', approved: false, approver: 'bob' })).rejects.toThrow(
      /tool call d1 is not pending \(status: running\)/,
    );

    hold.resolve();
    const result = await h.tiller.result(turnId);
    expect(result.status).toBe('completed');
    expect(result.toolCalls).toEqual([
      expect.objectContaining({ id: 'd1', status: 'succeeded', decision: asRecordedInState(first) }),
    ]);
    const state = await h.tiller.state(turnId);
    expect(state.events.filter((e) => e.type === 'TOOL_APPROVED')).toHaveLength(1);
    expect(state.events.filter((e) => e.type === 'TOOL_DENIED' || e.type === 'DECISION_REJECTED')).toEqual([]);
    expect(runs.get(`${turnId}:d1`)).toBe(1);
    const accepted = await acceptedUpdates(turnId);
    expect(accepted).toHaveLength(1);
    expect(accepted[0]!.workflowExecutionUpdateAcceptedEventAttributes!.protocolInstanceId).toBe(updateId);
    // Even after the turn has completed, the same update id still answers with the first result.
    await expect(other.decide(turnId, { id: 'd1', approved: false }, updateId)).resolves.toEqual(first);
  }, workerOpts);
});

test('a decision before the wait: rejected as unknown while the model call runs (update and signal), never applied later', async () => {
  h.model.setScript(scriptByInput({ 'early bird': writeThenAnswer('e1', 'early') }));
  // The model's answer is held at the client until released: the scripted model has received the
  // request and answered, but the model call (the activity) is still running.
  const release = deferred();
  let held = 0;
  const openai = new OpenAI({
    baseURL: h.model.url,
    apiKey: 'test',
    maxRetries: 0,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if (held++ === 0) await heldUntil(release.promise, init?.signal ?? undefined);
      return response;
    },
  });
  const requestsBefore = h.model.requests.length;
  await h.withWorker(
    async () => {
      const turnId = h.turnId('early');
      await h.tiller.startTurn({ agent: 'racer', input: 'early bird', turnId });
      await until('the model request', () => h.model.requests.length > requestsBefore, 60_000);

      // The update: rejected by the validator with a clear message; nothing written to history.
      const early = h.tiller.decide(turnId, { id: 'e1', approved: true, approver: 'early-update' });
      await expect(early).rejects.toBeInstanceOf(DecisionRejectedError);
      await expect(early).rejects.toThrow('unknown tool call id e1; pending: (none)');

      // The signal: recorded as DECISION_REJECTED, the turn goes on.
      await h.tiller.signalDecision(turnId, { id: 'e1', approved: true, approver: 'early-signal' });
      const rejected = await waitForState(
        h.tiller,
        turnId,
        (s) => s.events.some((e) => e.type === 'DECISION_REJECTED'),
        60_000,
      );
      expect(rejected.status).toBe('running');
      expect(rejected.usage.modelCalls).toBe(0); // still before the model answered
      expect(rejected.events.filter((e) => e.type === 'DECISION_REJECTED')).toEqual([
        expect.objectContaining({
          via: 'signal',
          id: 'e1',
          approver: 'early-signal',
          reason: 'unknown tool call id e1; pending: (none)',
        }),
      ]);

      release.resolve();
      const paused = await waitForState(h.tiller, turnId, awaitingApproval, 60_000);
      // The early approvals were not kept for later: the call waits for a human like any other.
      expect(paused.pendingApprovals).toEqual([expect.objectContaining({ id: 'e1', tool: 'guarded_write' })]);
      expect(runs.get(`${turnId}:e1`)).toBeUndefined();

      const decision = await h.tiller.approve(turnId, 'e1', { approver: 'on-time' });
      expect(decision).toMatchObject({ id: 'e1', approved: true, approver: 'on-time' });
      const result = await h.tiller.result(turnId);
      expect(result.status).toBe('completed');
      expect(result.output).toBe('finished early');
      expect(result.toolCalls).toEqual([
        expect.objectContaining({ id: 'e1', status: 'succeeded', decision: asRecordedInState(decision) }),
      ]);
      expect(runs.get(`${turnId}:e1`)).toBe(1);

      const state = await h.tiller.state(turnId);
      const types = state.events.map((e) => e.type);
      expect(types).toEqual([
        'AGENT_STARTED',
        'DECISION_REJECTED',
        'MODEL_CALLED',
        'APPROVAL_REQUESTED',
        'TOOL_APPROVED',
        'TOOL_STARTED',
        'TOOL_ENDED',
        'MODEL_CALLED',
        'TURN_COMPLETED',
      ]);
      expect(await acceptedUpdates(turnId)).toHaveLength(1);
    },
    { ...workerOpts, openai },
  );
});
