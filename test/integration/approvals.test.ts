import fs from 'node:fs';
import path from 'node:path';
import { recordFixture } from '../support/fixtures';
import { createHarness, waitForState, awaitingApproval, type Harness } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

function readThenDelete(file: string, final = 'done') {
  return [
    {
      content: 'reading',
      toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: file } }],
      usage: { prompt_tokens: 11, completion_tokens: 3 },
    },
    {
      toolCalls: [{ id: 'c2', name: 'delete_file', arguments: { path: file } }],
      usage: { prompt_tokens: 23, completion_tokens: 5 },
    },
    { content: final, usage: { prompt_tokens: 31, completion_tokens: 7 } },
  ];
}

const toolMessage = (body: any, id: string) =>
  body.messages.find((m: any) => m.role === 'tool' && m.tool_call_id === id)?.content;

test('approve: the gated tool runs after a human approves, with the decision and approver in state', async () => {
  fs.writeFileSync(path.join(h.workspace, 'a.txt'), 'hello a');
  h.model.setScript(readThenDelete('a.txt'));
  const turnId = h.turnId('approve');
  const state = await h.withWorker(async () => {
    await h.tiller.startTurn({ agent: 'assistant', input: 'read a.txt then delete it', turnId });
    const paused = await waitForState(h.tiller, turnId, awaitingApproval);
    expect(paused.pendingApprovals).toEqual([
      expect.objectContaining({
        id: 'c2',
        tool: 'delete_file',
        args: { path: 'a.txt' },
        argsDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      }),
    ]);
    expect(fs.existsSync(path.join(h.workspace, 'a.txt'))).toBe(true);
    const recorded = await h.tiller.approve(turnId, 'c2', { approver: 'alice' });
    expect(recorded).toMatchObject({ id: 'c2', approved: true, scope: 'once', approver: 'alice', via: 'update' });
    const result = await h.tiller.result(turnId);
    expect(result.status).toBe('completed');
    expect(result.output).toBe('done');
    expect(result.usage).toEqual({ inputTokens: 65, outputTokens: 15, totalTokens: 80, modelCalls: 3 });
    await recordFixture(h.client, turnId, 'approve-delete');
    return h.tiller.state(turnId);
  });
  expect(fs.existsSync(path.join(h.workspace, 'a.txt'))).toBe(false);
  expect(state.status).toBe('completed');
  expect(state.toolCalls.map((c) => [c.id, c.name, c.status])).toEqual([
    ['c1', 'read_file', 'succeeded'],
    ['c2', 'delete_file', 'succeeded'],
  ]);
  expect(state.toolCalls[1]?.decision).toMatchObject({ approved: true, approver: 'alice' });
  expect(state.toolCalls[1]?.durationMs).toEqual(expect.any(Number));
  expect(toolMessage(h.model.requests[1]!.body, 'c1')).toBe('hello a');
  expect(toolMessage(h.model.requests[2]!.body, 'c2')).toMatch(/^Deleted a.txt/);
  const types = state.events.map((e) => e.type);
  expect(types).toEqual([
    'AGENT_STARTED',
    'MODEL_CALLED',
    'TOOL_STARTED',
    'TOOL_ENDED',
    'MODEL_CALLED',
    'APPROVAL_REQUESTED',
    'TOOL_APPROVED',
    'TOOL_STARTED',
    'TOOL_ENDED',
    'MODEL_CALLED',
    'TURN_COMPLETED',
  ]);
  expect(state.events.map((e) => e.seq)).toEqual(types.map((_, i) => i + 1));
});
