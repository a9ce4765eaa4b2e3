/**
 * The demo agent (src/agents/assistant.ts: read_file free, delete_file gated) against llama.cpp's
 * llama-server with a real model: read, gated delete, approve, completed; and a denied delete whose
 * reason reaches the model. The model's words are not asserted; the events, state, approvals, the tool
 * calls and usage as the server sent them are.
 *
 * SmolLM2-135M never starts a tool call on its own: the wire tap makes its first answer call `read_file`,
 * its second `delete_file`, its third answer in text (support/wire-tap.ts says how and why). llama-server
 * may put several calls of that tool in one answer (it ignores `parallel_tool_calls: false`), so every
 * pending call is decided.
 */
import fs from 'node:fs';
import path from 'node:path';
import { defineAgent } from '../../src/agents/define';
import { assistant } from '../../src/agents/assistant';
import type { TurnState } from '../../src/core/state';
import { awaitingApproval, waitForState } from '../support/harness';
import { within } from '../support/wait';
import { expectRecordedAsServed, expectUsageAsServed } from './support/expect-wire';
import { createRealHarness, type RealHarness } from './support/harness';
import { toolPlan, type Exchange } from './support/wire-tap';

const agent = defineAgent({
  ...assistant,
  modelSettings: { maxTokens: 96, temperature: 0, seed: 42, parallelToolCalls: false },
});

let h: RealHarness;
beforeAll(async () => {
  h = await createRealHarness();
});
afterAll(async () => {
  await h?.close();
});

const ENDED = expect.stringMatching(/^TOOL_(ENDED|FAILED)$/);

/** The types of the events about one tool call, in order. */
const eventsOf = (state: TurnState, id: string) =>
  state.events.filter((e) => 'toolCallId' in e && e.toolCallId === id).map((e) => e.type);

/** The tool calls of the turn's n-th model call (from 1). */
function callsOf(state: TurnState, n: number) {
  const called = state.events.filter((e) => e.type === 'MODEL_CALLED');
  const event = called[n - 1];
  return event?.type === 'MODEL_CALLED' ? event.toolCalls : [];
}

/**
 * The turn's shape: read call(s), then gated delete call(s) — the first decided `decided`, any other
 * `others` (default: the same) — then a text answer.
 */
function expectDemoShape(state: TurnState, decided: (typeof ENDED)[], others = decided): void {
  const types = state.events.map((e) => e.type);
  expect(types[0]).toBe('AGENT_STARTED');
  expect(types.filter((t) => t === 'MODEL_CALLED')).toHaveLength(3);
  expect(types.at(-1)).toBe('TURN_COMPLETED');
  const reads = callsOf(state, 1);
  const deletes = callsOf(state, 2);
  expect(reads.length).toBeGreaterThanOrEqual(1);
  expect(deletes.length).toBeGreaterThanOrEqual(1);
  expect(callsOf(state, 3)).toEqual([]);
  for (const c of reads) {
    expect(c.name).toBe('read_file');
    expect(eventsOf(state, c.id)).toEqual(['TOOL_STARTED', ENDED]);
  }
  deletes.forEach((c, i) => {
    expect(c.name).toBe('delete_file');
    expect(eventsOf(state, c.id)).toEqual(['APPROVAL_REQUESTED', ...(i === 0 ? decided : others)]);
  });
  expect(state.toolCalls.map((c) => c.name)).toEqual([
    ...reads.map(() => 'read_file'),
    ...deletes.map(() => 'delete_file'),
  ]);
}

/**
 * Paused with every call of the model's second answer (the deletes) waiting for a person. The turn is
 * `awaiting_approval` once the first of them waits, while another may still be in its preview: deciding
 * only the calls pending then would leave that one waiting, and the turn with it.
 */
const deletesWaiting = (s: TurnState) =>
  awaitingApproval(s) &&
  callsOf(s, 2).length > 0 &&
  callsOf(s, 2).every((c) => s.pendingApprovals.some((p) => p.id === c.id));

/** The turn's result once its calls were decided; if it does not end, the failure says what still waits. */
async function ended(turnId: string) {
  try {
    return await within(h.tiller.result(turnId), 60_000, `turn ${turnId} to end once its calls were decided`);
  } catch (err) {
    const s = await h.tiller.state(turnId).catch(() => undefined);
    const waiting = s?.pendingApprovals.map((p) => `${p.id} (${p.tool})`).join(', ');
    throw new Error(`${(err as Error).message}; status ${s?.status}, still waiting: ${waiting || 'nothing'}`, {
      cause: err,
    });
  }
}

/** What the model's request carried back as the result of tool call `id`. */
const toolResultIn = (e: Exchange, id: string): unknown =>
  e.body.messages.find((m: { role: string; tool_call_id?: string }) => m.role === 'tool' && m.tool_call_id === id)
    ?.content;

test('read, gated delete, approve: the turn completes as the server answered', async () => {
  const input = 'Read notes.txt, then delete it.';
  fs.writeFileSync(path.join(h.workspace, 'notes.txt'), 'Hello from Tiller!\n');
  h.tap.steer(input, toolPlan(['read_file', 'delete_file', 'none']));
  const turnId = h.turnId('demo-approve');
  const state = await h.withWorker([agent], async () => {
    await h.tiller.startTurn({ agent: 'assistant', input, turnId });
    const paused = await waitForState(h.tiller, turnId, deletesWaiting, 60_000);
    expect(paused.pendingApprovals.length).toBeGreaterThanOrEqual(1);
    // The approver edits the path to the file written above: the model's own argument may name another
    // (a 135M model), and the approved delete must then run and succeed (issue 34: TOOL_FAILED was
    // accepted, and the file checked only if the call happened to succeed). A second delete is denied.
    // The first is the first call of the model's answer, not the first to wait: previews end in any
    // order, and pendingApprovals lists calls as they began to wait (CI once approved the second call).
    const [first, ...more] = callsOf(paused, 2);
    expect(first!.name).toBe('delete_file');
    await h.tiller.decide(turnId, { id: first!.id, approved: true, approver: 'alice', args: { path: 'notes.txt' } });
    for (const call of more) await h.tiller.deny(turnId, call.id, { approver: 'alice', reason: 'one is enough' });
    const result = await ended(turnId);
    expect(result.status).toBe('completed');
    expectUsageAsServed(result.usage, await h.tap.exchanges(input));
    return h.tiller.state(turnId);
  });

  expectDemoShape(state, ['TOOL_APPROVED', 'TOOL_STARTED', 'TOOL_ENDED'], ['TOOL_DENIED']);
  const exchanges = await h.tap.exchanges(input);
  expect(exchanges).toHaveLength(3);
  expect(exchanges.map((e) => e.body.stream)).toEqual([true, true, true]);
  expectRecordedAsServed(state, exchanges);
  for (const call of state.toolCalls) {
    // What each tool returned went back to the model as the tool message of its call.
    const next = exchanges[call.name === 'read_file' ? 1 : 2]!;
    expect(toolResultIn(next, call.id)).toEqual(expect.any(String));
  }
  const [deleted] = state.toolCalls.filter((c) => c.name === 'delete_file');
  expect(deleted).toMatchObject({ status: 'succeeded', decision: { approved: true, approver: 'alice' } });
  expect(fs.existsSync(path.join(h.workspace, 'notes.txt'))).toBe(false);
  expect(state.events.at(-1)).toMatchObject({ type: 'TURN_COMPLETED', output: expect.any(String) });
});

test('a denied delete: the reason reaches the model, the file stays, the turn completes', async () => {
  const input = 'Read plan.txt, then delete it.';
  const reason = 'Keep plan.txt: the team still needs it (ref 7f3a)';
  fs.writeFileSync(path.join(h.workspace, 'plan.txt'), 'Ship on Friday.\n');
  h.tap.steer(input, toolPlan(['read_file', 'delete_file', 'none']));
  const turnId = h.turnId('demo-deny');
  const state = await h.withWorker([agent], async () => {
    await h.tiller.startTurn({ agent: 'assistant', input, turnId });
    const paused = await waitForState(h.tiller, turnId, deletesWaiting, 60_000);
    for (const pending of paused.pendingApprovals) {
      await h.tiller.deny(turnId, pending.id, { reason, approver: 'bob' });
    }
    const result = await ended(turnId);
    expect(result.status).toBe('completed');
    expectUsageAsServed(result.usage, await h.tap.exchanges(input));
    return h.tiller.state(turnId);
  });

  expectDemoShape(state, ['TOOL_DENIED']);
  expect(fs.readFileSync(path.join(h.workspace, 'plan.txt'), 'utf8')).toBe('Ship on Friday.\n');
  const exchanges = await h.tap.exchanges(input);
  expect(exchanges).toHaveLength(3);
  expectRecordedAsServed(state, exchanges);
  // The model's next request carries each denial, with the approver's reason, as the call's tool result.
  for (const call of callsOf(state, 2)) {
    expect(state.toolCalls.find((c) => c.id === call.id)).toMatchObject({ status: 'denied' });
    expect(toolResultIn(exchanges[2]!, call.id)).toEqual(expect.stringContaining(reason));
  }
});
