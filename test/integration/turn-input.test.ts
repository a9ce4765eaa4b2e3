/** Bad turn input and odd model output get clear, defined outcomes. */
import { WorkflowFailedError } from '@temporalio/client';
import { useHarness, waitForState, awaitingApproval } from '../support/harness';

const h = useHarness();

async function failureOf(turnId: string): Promise<string> {
  const err = await h.client.workflow
    .getHandle(turnId)
    .result()
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  return (err as WorkflowFailedError).cause?.message ?? '';
}

test('malformed workflow input fails the turn at once with a readable message', async () => {
  const turnId = h.turnId('bad-input');
  await h.withWorker(async () => {
    await h.client.workflow.start('agentTurn', { taskQueue: h.taskQueue, workflowId: turnId, args: [{ input: 42 }] });
    expect(await failureOf(turnId)).toMatch(/invalid agentTurn input: agent: .*; input: /);
  });
  expect(h.model.requests).toHaveLength(0);
});

test('an unknown agent fails the turn, naming the agents this worker serves', async () => {
  const turnId = h.turnId('unknown-agent');
  await h.withWorker(async () => {
    await h.tiller.startTurn({ agent: 'nobody', input: 'hi', turnId });
    expect(await failureOf(turnId)).toMatch(/unknown agent "nobody"; this worker serves: assistant/);
    const result = await h.tiller.result(turnId);
    expect(result.status).toBe('failed');
  });
});

test('a model that reuses tool call ids still gets one record and one approval per call', async () => {
  h.model.setScript([
    { toolCalls: [{ id: 'call_0', name: 'read_file', arguments: { path: 'nope.txt' } }] },
    { toolCalls: [{ id: 'call_0', name: 'delete_file', arguments: { path: 'nope.txt' } }] },
    { content: 'ok' },
  ]);
  const turnId = h.turnId('dup-ids');
  await h.withWorker(async () => {
    await h.tiller.startTurn({ agent: 'assistant', input: 'x', turnId });
    const paused = await waitForState(h.tiller, turnId, awaitingApproval);
    expect(paused.toolCalls.map((c) => c.id)).toEqual(['call_0', 'call_0#2']);
    expect(paused.pendingApprovals.map((p) => p.id)).toEqual(['call_0#2']);
    await h.tiller.deny(turnId, 'call_0#2');
    await h.tiller.result(turnId);
  });
  const toolMessages = h.model.requests[2]!.body.messages.filter((m: any) => m.role === 'tool');
  expect(toolMessages.map((m: any) => m.tool_call_id)).toEqual(['call_0', 'call_0']);
  expect(toolMessages[0].content).toBe('Error: read_file failed: nope.txt does not exist');
  expect(toolMessages[1].content).toBe('Tool call denied by user.');
});
