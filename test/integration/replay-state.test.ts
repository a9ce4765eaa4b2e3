/**
 * What the `state` query answers does not change when a turn is replayed (issue 34): a turn whose
 * read-only tool ran as a local activity, read from the worker that ran it and then from a fresh worker
 * that rebuilt it from history, answers the same state — every timestamp included.
 */
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { defineTool } from '../../src/tools/define';
import { fileTools } from '../../src/tools/files';
import { awaitingApproval, useHarness, waitForState } from '../support/harness';

const h = useHarness();

const lookup = defineTool({
  name: 'lookup',
  description: 'reads',
  input: z.object({ n: z.number() }),
  readOnly: true,
  execute: ({ n }) => `value ${n}`,
});
const agents = [
  defineAgent({
    name: 'reader',
    instructions: 'x',
    tools: ['lookup', 'delete_file'],
    approvals: { delete_file: true },
  }),
];

const workerOpts = () => ({ agents, tools: [lookup, fileTools(() => h.workspace).deleteFile] });

test('a turn with a local-activity tool call answers the same state after a replay', async () => {
  // The model's answer after the tool is slow: the workflow task that follows the local activity starts
  // well after it completed, so a timestamp taken from that task's time would differ on replay.
  h.model.setScript([
    { toolCalls: [{ id: 'l1', name: 'lookup', arguments: { n: 1 } }] },
    { toolCalls: [{ id: 'l2', name: 'lookup', arguments: { n: 2 } }], delayMs: 300 },
    { toolCalls: [{ id: 'd1', name: 'delete_file', arguments: { path: 'nothing.txt' } }], delayMs: 300 },
  ]);
  const turnId = h.turnId('replay-state');
  const before = await h.withWorker(async () => {
    await h.tiller.startTurn({ agent: 'reader', input: 'go', turnId });
    return waitForState(h.tiller, turnId, awaitingApproval);
  }, workerOpts());
  expect(before.toolCalls.map((c) => c.status)).toEqual(['succeeded', 'succeeded', 'awaiting_approval']);
  // A local call ends at its start plus the duration it reported, both in history — not at the time of
  // the activation that resolved it, which a replay may see later (issue 34).
  for (const call of before.toolCalls.slice(0, 2)) {
    expect(Date.parse(call.endedAt!)).toBe(Math.floor(Date.parse(call.startedAt!) + call.durationMs!));
  }
  // A new worker has nothing cached: it answers by replaying the history.
  const after = await h.withWorker(() => h.tiller.state(turnId), workerOpts());
  expect(after).toEqual(before);
});
