/**
 * What the `state` query answers does not change when a turn is replayed (issue 34): a turn whose
 * agent was resolved, whose preview was made and whose read-only tools ran in local activities, read
 * from the worker that ran each part and then from a fresh worker that rebuilt it from history,
 * answers the same state — every timestamp included — even when queries reached the worker with the
 * tasks that ran those local activities (core then answers the query and forces a new task, and the
 * activation that resolves the local activity runs at that task's time: see src/workflows/clock.ts).
 */
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import type { TurnState } from '../../src/core/state';
import { defineTool } from '../../src/tools/define';
import { awaitingApproval, useHarness, waitForState } from '../support/harness';
import { forcedWorkflowTasks } from '../support/history';

const h = useHarness();

const lookup = defineTool({
  name: 'lookup',
  description: 'reads',
  input: z.object({ n: z.number() }),
  readOnly: true,
  execute: ({ n }) => `value ${n}`,
});
// Read-only, so it runs locally; gated, so its preview runs locally too and a human decides.
const peek = defineTool({
  name: 'peek',
  description: 'reads, with a human watching',
  input: z.object({ n: z.number() }),
  readOnly: true,
  preview: ({ n }) => `would peek at ${n}`,
  execute: ({ n }) => `peeked ${n}`,
});
const agents = [
  defineAgent({ name: 'reader', instructions: 'x', tools: ['lookup', 'peek'], approvals: { peek: true } }),
];
const workerOpts = () => ({ agents, tools: [lookup, peek] });
const completed = (s: { status: string }) => s.status === 'completed';

/**
 * With no worker polling, sends a `state` query (it reaches the next worker with the turn's next task),
 * runs a worker until `until` holds, and checks that a fresh worker — nothing cached, it replays the
 * history — answers the same state. Returns that state.
 */
async function queriedThenReplayed(turnId: string, until: (s: TurnState) => boolean): Promise<TurnState> {
  const queried = h.tiller.state(turnId);
  const state = await h.withWorker(async () => {
    await queried;
    return waitForState(h.tiller, turnId, until);
  }, workerOpts());
  expect(await h.withWorker(() => h.tiller.state(turnId), workerOpts())).toEqual(state);
  return state;
}

test('a turn of local activities answers the same state after a replay, queries and all', async () => {
  // The model's answers are slow: the tasks that follow the local activities start well after them,
  // so a timestamp taken from a task's time would differ on replay.
  h.model.setScript([
    { toolCalls: [{ id: 'l1', name: 'lookup', arguments: { n: 1 } }] },
    { toolCalls: [{ id: 'l2', name: 'lookup', arguments: { n: 2 } }], delayMs: 300 },
    { toolCalls: [{ id: 'p1', name: 'peek', arguments: { n: 3 } }], delayMs: 300 },
    { content: 'done', delayMs: 300 },
  ]);
  const turnId = h.turnId('replay-state');
  const handle = h.client.workflow.getHandle(turnId);
  // No worker yet: the query waits for the turn's first task and reaches the worker with it, while
  // `startTurn` runs in a local activity.
  await h.tiller.startTurn({ agent: 'reader', input: 'go', turnId });
  const paused = await queriedThenReplayed(turnId, awaitingApproval);
  expect(paused.toolCalls.map((c) => c.status)).toEqual(['succeeded', 'succeeded', 'awaiting_approval']);

  // No worker again: the approval and a query reach the next worker together, and the approved call
  // runs in a local activity in that task.
  await handle.signal('decide', { id: 'p1', approved: true, approver: 'alice' });
  const done = await queriedThenReplayed(turnId, completed);
  expect(done.toolCalls.map((c) => c.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);

  // Both queries came with a task while a local activity's result was pending: the case under test.
  const { events } = await handle.fetchHistory();
  expect(forcedWorkflowTasks(events ?? [])).toBeGreaterThanOrEqual(2);
  // A local call ends at its start plus the duration it reported, both in history.
  for (const call of done.toolCalls) {
    expect(Date.parse(call.endedAt!)).toBe(Math.floor(Date.parse(call.startedAt!) + call.durationMs!));
  }
});
