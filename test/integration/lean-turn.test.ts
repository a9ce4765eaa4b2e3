/**
 * Issue 36: approvals and sessions at the cost of bare Temporal. A turn's run started on this version
 * records one patch marker (`lean-turn`) for every earlier patch, starts (`startTurn`) and previews
 * (`previewTool`) in local activities, fits its context window without a promise when nothing is to be
 * trimmed, and — in a session — tells its session only what it waits for. What a client reads is the
 * same: the state, the pending approvals and their previews, the session's current turn.
 *
 * Fixtures (TILLER_RECORD_FIXTURES=1): lean-gated, lean-session with its two turns, lean-context-window.
 * Turns recorded before (every other fixture) replay on their own path: test/unit/replay.test.ts.
 */
import { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { WORKFLOW_TYPE_TURN } from '../../src/core/contract';
import { defineTool } from '../../src/tools/define';
import { PATCH_LEAN_TURN } from '../../src/workflows/patches';
import { recordFixture } from '../support/fixtures';
import { createHarness, waitForState, type Harness } from '../support/harness';
import { localActivity, patchIds } from '../support/history';
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
const agents = [
  defineAgent({ name: 'lean_gated', instructions: 'x', tools: ['touch'], approvals: { touch: true } }),
  defineAgent({
    name: 'lean_window',
    instructions: 'x',
    tools: ['touch'],
    contextWindow: { tokens: 400 },
    modelSettings: { maxTokens: 50 },
  }),
];
const worker = () => h.worker({ agents, tools: [touch] });
const touchCall = (id: string, n: number) => ({ toolCalls: [{ id, name: 'touch', arguments: { n } }] });

async function history(workflowId: string): Promise<HistoryEvent[]> {
  return (await h.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}
const scheduled = (events: HistoryEvent[]) =>
  events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
const locals = (events: HistoryEvent[]) => events.flatMap((e) => localActivity(e)?.type ?? []);
const ofType = (events: HistoryEvent[], type: temporal.api.enums.v1.EventType) =>
  events.filter((e) => e.eventType === type);
/** Each upsert's keys and decoded values, in order. */
const upserts = (events: HistoryEvent[]) =>
  ofType(events, EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES).map((e) =>
    Object.fromEntries(
      Object.entries(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}).map(
        ([k, v]) => [k, JSON.parse(Buffer.from(v.data ?? []).toString())],
      ),
    ),
  );

test('a gated turn: one patch marker, start and previews local, one upsert per change of what waits', async () => {
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
  await recordFixture(h.client, turnId, 'lean-gated');
  const events = await history(turnId);
  expect(patchIds(events)).toEqual([PATCH_LEAN_TURN]);
  expect(scheduled(events)).toEqual(['callModel', 'runTool', 'callModel', 'runTool', 'callModel']);
  expect(locals(events)).toEqual(['startTurn', 'previewTool', 'previewTool']);
  // One upsert per change of status or of what waits, and core's one for the patch.
  expect(upserts(events).map((u) => u.TemporalChangeVersion ?? u.TillerStatus)).toEqual([
    [PATCH_LEAN_TURN],
    'running',
    'awaiting_approval',
    'running',
    'awaiting_approval',
    'running',
    'completed',
  ]);
  // A gated step, from one model call's scheduling to the next: the model activity and its task (6),
  // the preview's marker and the upsert (2), the update's task with the update and an upsert (6), the
  // tool activity and its task (6) — 20 events, against the bare loop's 17.
  const modelAt = events.flatMap((e, i) =>
    e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel' ? [i] : [],
  );
  expect(modelAt.slice(1).map((at, k) => at - modelAt[k]!)).toEqual([20, 20]);
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
  await recordFixture(h.client, sessionId, 'lean-session');
  await recordFixture(h.client, plain, 'lean-session-turn-1');
  await recordFixture(h.client, gated, 'lean-session-turn-2');
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
  await recordFixture(h.client, turnId, 'lean-context-window');
  const trims = state.events.filter((e) => e.type === 'CONTEXT_TRIMMED');
  expect(trims).toHaveLength(1);
  expect(state.events.findIndex((e) => e.type === 'CONTEXT_TRIMMED')).toBeLessThan(
    state.events.findIndex((e) => e.type === 'MODEL_CALLED'),
  );
  expect(patchIds(await history(turnId))).toEqual([PATCH_LEAN_TURN]);
});
