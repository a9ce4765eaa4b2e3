/**
 * Issue 36: approvals and sessions at the cost of bare Temporal. A turn's run started on this version
 * records one patch marker (`window-in-model-call`) for every earlier patch, starts (`startTurn`) and
 * previews (`previewTool`) in local activities, previews only a tool that has a preview (the model call
 * checked a gated call's arguments otherwise), does not set the search attributes its client started it
 * with, fits its context window without a promise when nothing is to be trimmed (and retries a refused
 * prompt from the model call, not a wrapper around every call), and — in a session —
 * tells its session only what it waits for. What a client reads is the same: the state, the pending
 * approvals and their previews, the session's current turn.
 *
 * Fixtures (TILLER_RECORD_FIXTURES=1): in-call-gated, in-call-gated-preview, in-call-session with its
 * two turns, in-call-context-window. The lean-* fixtures were recorded on the first lean version (one
 * `lean-turn` marker), the at-cost-* ones on the next (`approvals-at-cost`); they and every other
 * fixture replay on their own path: test/unit/replay.test.ts.
 */
import { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { WORKFLOW_TYPE_TURN } from '../../src/core/contract';
import { defineTool } from '../../src/tools/define';
import { PATCH_WINDOW_IN_MODEL_CALL } from '../../src/workflows/patches';
import { recordFixture } from '../support/fixtures';
import { createHarness, waitForState, type Harness } from '../support/harness';
import { forcedWorkflowTasks, localActivity, patchIds } from '../support/history';
import { pollUntil } from '../support/wait';

const EventType = temporal.api.enums.v1.EventType;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

const touch = defineTool({
  name: 'touch',
  description: 'Touch a number; needs approval.',
  input: z.object({ n: z.number() }),
  preview: ({ n }) => `would touch ${n}`,
  execute: ({ n }) => `touched ${n}`,
});
const poke = defineTool({
  name: 'poke',
  description: 'Poke a number; needs approval; no preview.',
  input: z.object({ n: z.number() }),
  execute: ({ n }) => `poked ${n}`,
});
const agents = [
  defineAgent({ name: 'lean_gated', instructions: 'x', tools: ['touch'], approvals: { touch: true } }),
  defineAgent({ name: 'lean_poke', instructions: 'x', tools: ['poke'], approvals: { poke: true } }),
  defineAgent({
    name: 'lean_window',
    instructions: 'x',
    tools: ['touch'],
    contextWindow: { tokens: 400 },
    modelSettings: { maxTokens: 50 },
  }),
];
const worker = () => h.worker({ agents, tools: [touch, poke] });
const touchCall = (id: string, n: number) => ({ toolCalls: [{ id, name: 'touch', arguments: { n } }] });

async function history(workflowId: string): Promise<HistoryEvent[]> {
  return (await h.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}
const scheduled = (events: HistoryEvent[]) =>
  events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
const locals = (events: HistoryEvent[]) => events.flatMap((e) => localActivity(e)?.type ?? []);
const ofType = (events: HistoryEvent[], type: temporal.api.enums.v1.EventType) =>
  events.filter((e) => e.eventType === type);
/** Where each `callModel` was scheduled. */
const modelIndexes = (events: HistoryEvent[]) =>
  events.flatMap((e, i) => (e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel' ? [i] : []));
/** Each upsert's keys and decoded values, in order. */
const upserts = (events: HistoryEvent[]) =>
  ofType(events, EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES).map((e) =>
    Object.fromEntries(
      Object.entries(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}).map(
        ([k, v]) => [k, JSON.parse(Buffer.from(v.data ?? []).toString())],
      ),
    ),
  );

const pokeCall = (id: string, args: Record<string, unknown>) => ({
  toolCalls: [{ id, name: 'poke', arguments: args }],
});
/** The number of events between consecutive `callModel` schedulings. */
const modelGaps = (events: HistoryEvent[]) => {
  const at = modelIndexes(events);
  return at.slice(1).map((x, k) => x - at[k]!);
};

test('a gated turn with previews: one patch marker, start and previews local, one upsert per change of what waits', async () => {
  h.model.setScript([touchCall('t1', 1), touchCall('t2', 2), { content: 'done' }]);
  const turnId = h.turnId('lean-gated');
  await (
    await worker()
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'lean_gated', input: 'touch twice', turnId });
    for (const [id, n] of [
      ['t1', 1],
      ['t2', 2],
    ] as const) {
      const paused = await waitForState(h.tiller, turnId, (s) => s.pendingApprovals.some((p) => p.id === id));
      // What an approver reads is unchanged: the preview, made in the local activity.
      expect(paused.pendingApprovals).toEqual([
        expect.objectContaining({ id, tool: 'touch', preview: `would touch ${n}` }),
      ]);
      await h.tiller.approve(turnId, id, { approver: 'alice' });
    }
    expect(await h.tiller.result(turnId)).toMatchObject({ status: 'completed', output: 'done' });
  });
  await recordFixture(h.client, turnId, 'in-call-gated-preview');
  const events = await history(turnId);
  expect(patchIds(events)).toEqual([PATCH_WINDOW_IN_MODEL_CALL]);
  expect(scheduled(events)).toEqual(['callModel', 'runTool', 'callModel', 'runTool', 'callModel']);
  expect(locals(events)).toEqual(['startTurn', 'previewTool', 'previewTool']);
  // Core's one for the patch, then one per change of status or of what waits; none for the start (the
  // client started the turn with the search attributes of a running turn).
  expect(upserts(events).map((u) => u.TemporalChangeVersion ?? u.TillerStatus)).toEqual([
    [PATCH_WINDOW_IN_MODEL_CALL],
    'awaiting_approval',
    'running',
    'awaiting_approval',
    'running',
    'completed',
  ]);
  // A gated step, from one model call's scheduling to the next: the model activity and its task (6),
  // the preview's marker and the upsert (2), the update's task with the update and an upsert (6), the
  // tool activity and its task (6) — 20 events, against the bare loop's 17. A `state` query that reached
  // the worker with the task running the preview made core force one more task (3 events) for it.
  const at = modelIndexes(events);
  const forced = forcedWorkflowTasks(events.slice(at[0], at.at(-1)));
  expect(modelGaps(events).reduce((a, b) => a + b)).toBe(40 + 3 * forced);
});

test('a gated tool without a preview: its model call checks the arguments, nothing runs before the wait', async () => {
  // p1 waits for a human; p2's arguments do not match the schema: refused without asking anyone.
  h.model.setScript([pokeCall('p1', { n: 1 }), pokeCall('p2', { n: 'one' }), { content: 'done' }]);
  const turnId = h.turnId('at-cost-gated');
  const [state, messages] = await (
    await worker()
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'lean_poke', input: 'poke', turnId });
    const paused = await waitForState(h.tiller, turnId, (s) => s.pendingApprovals.length > 0);
    expect(paused.pendingApprovals).toEqual([expect.objectContaining({ id: 'p1', tool: 'poke', args: { n: 1 } })]);
    expect(paused.pendingApprovals[0]!.preview).toBeUndefined();
    await h.tiller.approve(turnId, 'p1', { approver: 'alice' });
    expect(await h.tiller.result(turnId)).toMatchObject({ status: 'completed', output: 'done' });
    const conversation = await h.client.workflow
      .getHandle(turnId)
      .query<{ messages: { role: string; content?: string }[] }, [unknown]>('conversation', { count: 100 });
    return [await h.tiller.state(turnId), conversation.messages] as const;
  });
  await recordFixture(h.client, turnId, 'in-call-gated');
  const events = await history(turnId);
  expect(patchIds(events)).toEqual([PATCH_WINDOW_IN_MODEL_CALL]);
  expect(locals(events)).toEqual(['startTurn']);
  expect(scheduled(events)).toEqual(['callModel', 'runTool', 'callModel', 'callModel']);
  expect(upserts(events).map((u) => u.TemporalChangeVersion ?? u.TillerStatus)).toEqual([
    [PATCH_WINDOW_IN_MODEL_CALL],
    'awaiting_approval',
    'running',
    'completed',
  ]);
  // The refused call never waited, and the model read why, worded as the preview activity words it.
  expect(state.events.filter((e) => e.type === 'APPROVAL_REQUESTED').map((e) => e.toolCallId)).toEqual(['p1']);
  const refused = state.toolCalls.find((c) => c.id === 'p2');
  expect(refused).toMatchObject({ status: 'failed' });
  expect(refused?.error).toMatch(/^invalid arguments for poke: n: /);
  expect(messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual([
    'poked 1',
    expect.stringMatching(/^Error: invalid arguments for poke: n: /),
  ]);
  // A gated step: the model activity and its task (6), the upsert that it waits (1), the update's task
  // with the update and an upsert (6), the tool activity and its task (6) — 19 events, against the bare
  // loop's 17 (its two are the waiting turn's search attributes, set and cleared).
  expect(modelGaps(events)[0]).toBe(19);
});

test('a session turn tells its session only what it waits for; the session shows it as before', async () => {
  const sessionId = h.turnId('lean-session');
  h.model.setScript([{ content: 'hello' }, touchCall('s1', 7), { content: 'touched' }]);
  const signals = async (turnId: string) => ({
    sent: ofType(await history(turnId), EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED).length,
  });
  const [plain, gated, state] = await (
    await worker()
  ).runUntil(async () => {
    const { turnId: first } = await h.tiller.send(sessionId, 'hi', { agent: 'lean_gated' });
    await h.tiller.result(first);
    await pollUntil(
      async () => ((await h.tiller.sessionState(sessionId)).status === 'idle' ? true : undefined),
      'idle',
    );
    const { turnId: second } = await h.tiller.send(sessionId, 'touch 7', { agent: 'lean_gated' });
    const current = await pollUntil(async () => {
      const s = await h.tiller.sessionState(sessionId);
      return s.currentTurn?.status === 'awaiting_approval' ? s.currentTurn : undefined;
    }, 'the session showing its turn waiting');
    expect(current).toMatchObject({ turnId: second, pendingApprovals: [expect.objectContaining({ id: 's1' })] });
    await h.tiller.approve(second, 's1', { approver: 'alice' });
    expect(await h.tiller.result(second)).toMatchObject({ status: 'completed', output: 'touched' });
    const idle = await pollUntil(async () => {
      const s = await h.tiller.sessionState(sessionId);
      return s.status === 'idle' ? s : undefined;
    }, 'the session idle again');
    return [first, second, idle] as const;
  });
  await recordFixture(h.client, sessionId, 'in-call-session');
  await recordFixture(h.client, plain, 'in-call-session-turn-1');
  await recordFixture(h.client, gated, 'in-call-session-turn-2');
  expect(patchIds(await history(plain))).toEqual([PATCH_WINDOW_IN_MODEL_CALL]);
  expect(patchIds(await history(gated))).toEqual([PATCH_WINDOW_IN_MODEL_CALL]);
  // The session (started with TillerSession) started its turns as running: they set only what changed.
  const statuses = async (turnId: string) =>
    upserts(await history(turnId)).map((u) => u.TemporalChangeVersion ?? u.TillerStatus);
  expect(await statuses(plain)).toEqual([[PATCH_WINDOW_IN_MODEL_CALL], 'completed']);
  expect(await statuses(gated)).toEqual([[PATCH_WINDOW_IN_MODEL_CALL], 'awaiting_approval', 'running', 'completed']);
  expect(state.turns.map((t) => [t.turnId, t.status, t.output])).toEqual([
    [plain, 'completed', 'hello'],
    [gated, 'completed', 'touched'],
  ]);
  // The plain turn says nothing (the session started it running and reads its end from the result);
  // the gated one says it waits, then that it waits no more.
  expect(await signals(plain)).toEqual({ sent: 0 });
  expect(await signals(gated)).toEqual({ sent: 2 });
  expect(ofType(await history(sessionId), EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)).toHaveLength(2);
});

test('a context window: nothing to trim costs no command; a trim is recorded as before', async () => {
  // A history past the window (400 tokens, 50 kept for the answer): the first call trims it, the second
  // (after the tool) fits.
  const history_ = Array.from({ length: 12 }, (_, i) => ({
    role: i % 2 ? ('assistant' as const) : ('user' as const),
    content: `message ${i} ${'words '.repeat(30)}`,
  }));
  h.model.setScript([touchCall('w1', 3), { content: 'ok' }]);
  const turnId = h.turnId('lean-context-window');
  const state = await (
    await worker()
  ).runUntil(async () => {
    await h.client.workflow.start(WORKFLOW_TYPE_TURN, {
      taskQueue: h.taskQueue,
      workflowId: turnId,
      args: [{ agent: 'lean_window', input: 'touch 3', history: history_ }],
    });
    expect(await h.tiller.result(turnId)).toMatchObject({ status: 'completed', output: 'ok' });
    return h.tiller.state(turnId);
  });
  await recordFixture(h.client, turnId, 'in-call-context-window');
  const trims = state.events.filter((e) => e.type === 'CONTEXT_TRIMMED');
  expect(trims).toHaveLength(1);
  expect(state.events.findIndex((e) => e.type === 'CONTEXT_TRIMMED')).toBeLessThan(
    state.events.findIndex((e) => e.type === 'MODEL_CALLED'),
  );
  expect(patchIds(await history(turnId))).toEqual([PATCH_WINDOW_IN_MODEL_CALL]);
});
