/** Cancelling a turn: in-flight tools and waits are cancelled, the turn ends `cancelled` with its state intact. */
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { z } from 'zod';
import { createHarness, waitForState, awaitingApproval, type Harness } from '../support/harness';
import { defineAgent } from '../../src/agents/define';
import { defineTool } from '../../src/tools/define';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

const seen: string[] = [];
const slow = defineTool({
  name: 'slow',
  description: 'runs until cancelled',
  input: z.object({}),
  heartbeatTimeout: '10 seconds',
  execute: async (_args, ctx) => {
    seen.push('started');
    while (!ctx.signal.aborted) {
      ctx.heartbeat();
      await new Promise((r) => setTimeout(r, 50));
    }
    seen.push('aborted');
    throw new Error('cancelled');
  },
});
const quick = defineTool({ name: 'quick', description: 'x', input: z.object({}), execute: () => 'fine' });
const agent = defineAgent({
  name: 'cancellable',
  instructions: 'x',
  tools: ['slow', 'quick'],
  approvals: { quick: true },
});
const worker = () => h.worker({ agents: [agent], tools: [slow, quick] });

async function expectCancelled(turnId: string) {
  const err = await h.tiller.result(turnId).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
}

test('cancelling a turn that waits for approval ends it cancelled, keeping what happened', async () => {
  h.model.setScript([{ toolCalls: [{ id: 'q1', name: 'quick', arguments: {} }] }]);
  const turnId = h.turnId('cancel-wait');
  const state = await (
    await worker()
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'cancellable', input: 'go', turnId });
    await waitForState(h.tiller, turnId, awaitingApproval);
    await h.tiller.cancel(turnId);
    await expectCancelled(turnId);
    return h.tiller.state(turnId);
  });
  expect(state.status).toBe('cancelled');
  expect(state.pendingApprovals).toEqual([]);
  expect(state.toolCalls[0]).toMatchObject({
    id: 'q1',
    status: 'failed',
    error: 'not completed: the turn was cancelled',
  });
  expect(state.usage.modelCalls).toBe(1);
  expect(state.events.at(-1)?.type).toBe('TURN_CANCELLED');
});

test('a running tool receives the cancellation through its heartbeat and its signal aborts', async () => {
  seen.length = 0;
  h.model.setScript([{ toolCalls: [{ id: 's1', name: 'slow', arguments: {} }] }]);
  const turnId = h.turnId('cancel-tool');
  await (
    await worker()
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'cancellable', input: 'go', turnId });
    await waitForState(h.tiller, turnId, (s) =>
      s.toolCalls.some((c) => c.id === 's1' && c.status === 'running' && !!c.startedAt),
    );
    await h.tiller.cancel(turnId);
    await expectCancelled(turnId);
    const state = await h.tiller.state(turnId);
    expect(state.status).toBe('cancelled');
    expect(state.toolCalls[0]).toMatchObject({ status: 'failed' });
    // Still inside runUntil: the abort comes from the cancellation, not from the worker shutting down.
    const deadline = Date.now() + 20_000;
    while (!seen.includes('aborted') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(seen).toEqual(['started', 'aborted']);
  });
  expect(seen).toEqual(['started', 'aborted']);
});
