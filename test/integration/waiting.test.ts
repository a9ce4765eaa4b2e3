/**
 * `TillerClient.waiting` (issue 36): a client polling a turn until a call waits reads the turn's
 * `TillerStatus` from describe and queries it only once it waits. A query that reaches the worker with
 * a workflow task running a local activity (the turn's start, a preview) makes core complete that task
 * early and force another — three history events a gated step does not need. `summary` polled the same
 * way forces that task; `waiting` does not, and still returns the waiting call with its preview.
 */
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { defineTool } from '../../src/tools/define';
import { awaitingApproval, useHarness, waitForState } from '../support/harness';
import { forcedWorkflowTasks } from '../support/history';
import { pollUntil } from '../support/wait';

const h = useHarness();

const touch = defineTool({
  name: 'touch',
  description: 'Touch a number; needs approval.',
  input: z.object({ n: z.number() }),
  preview: ({ n }) => `would touch ${n}`,
  execute: ({ n }) => `touched ${n}`,
});
const workerOpts = () => ({
  agents: [defineAgent({ name: 'toucher', instructions: 'x', tools: ['touch'], approvals: { touch: true } })],
  tools: [touch],
});
const script = (id: string) => [{ toolCalls: [{ id, name: 'touch', arguments: { n: 1 } }] }, { content: 'done' }];

async function forced(turnId: string): Promise<number> {
  return forcedWorkflowTasks((await h.client.workflow.getHandle(turnId).fetchHistory()).events ?? []);
}

test('a summary query sent before a worker polls rides on the first task and forces another', async () => {
  h.model.setScript(script('s1'));
  const turnId = h.turnId('waiting-control');
  await h.tiller.startTurn({ agent: 'toucher', input: 'go', turnId });
  const early = h.tiller.summary(turnId); // no worker yet: it waits for the turn's first task
  await h.withWorker(async () => {
    expect((await early).status).toBe('running');
    await waitForState(h.tiller, turnId, awaitingApproval);
    await h.tiller.decide(turnId, { id: 's1', approved: true, approver: 'alice' });
    await h.tiller.result(turnId);
  }, workerOpts());
  expect(await forced(turnId)).toBeGreaterThanOrEqual(1);
});

test('waiting() answers from describe until the turn waits, then the call and its preview; no task forced', async () => {
  h.model.setScript(script('w1'));
  const turnId = h.turnId('waiting');
  await h.tiller.startTurn({ agent: 'toucher', input: 'go', turnId });
  // No worker: a query could not be answered; describe is.
  expect(await h.tiller.waiting(turnId)).toEqual([]);
  await h.withWorker(async () => {
    const waiting = await pollUntil(async () => {
      const calls = await h.tiller.waiting(turnId);
      return calls.length > 0 ? calls : undefined;
    }, 'the call waiting');
    expect(waiting).toEqual([expect.objectContaining({ id: 'w1', tool: 'touch', preview: 'would touch 1' })]);
    await h.tiller.decide(turnId, { id: 'w1', approved: true, approver: 'alice' });
    expect(await h.tiller.result(turnId)).toMatchObject({ status: 'completed', output: 'done' });
  }, workerOpts());
  expect(await forced(turnId)).toBe(0);
  // A closed turn: nothing waits, and nothing is queried.
  expect(await h.tiller.waiting(turnId)).toEqual([]);
});
