/** The model activity against the scripted OpenAI-compatible server: usage, retries, failures, limits. */
import { WorkflowFailedError } from '@temporalio/client';
import { z } from 'zod';
import { recordFixture } from '../support/fixtures';
import { createHarness, waitForState, awaitingApproval, type Harness } from '../support/harness';
import { defineAgent } from '../../src/agents/define';
import { defineTool } from '../../src/tools/define';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ usageInEveryChunk: true });
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => {
  h.model.requests.length = 0;
});

const ping = defineTool({ name: 'ping', description: 'ping', input: z.object({}), execute: () => 'pong' });
const agents = [
  defineAgent({ name: 'streamer', instructions: 'x', tools: ['ping'], approvals: { ping: true } }),
  defineAgent({ name: 'unary', instructions: 'x', tools: ['ping'], stream: false }),
  defineAgent({ name: 'limited', instructions: 'x', tools: ['ping'], maxModelCalls: 2 }),
];
const worker = () => h.worker({ agents, tools: [ping] });
const pingCall = (id: string, usage: { prompt_tokens: number; completion_tokens: number }) => ({
  toolCalls: [{ id, name: 'ping', arguments: {} }],
  usage,
});

test('usage is counted once per call, streamed (with usage repeated on every chunk) and not, and summed across a pause', async () => {
  h.model.setScript([
    pingCall('a1', { prompt_tokens: 100, completion_tokens: 7 }),
    { content: 'streamed answer', usage: { prompt_tokens: 130, completion_tokens: 11 } },
  ]);
  const streamed = h.turnId('usage-stream');
  const plain = h.turnId('usage-unary');
  await (
    await worker()
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'streamer', input: 'go', turnId: streamed });
    await waitForState(h.tiller, streamed, awaitingApproval);
    await h.tiller.approve(streamed, 'a1');
    const s = await h.tiller.result(streamed);
    expect(s.usage).toEqual({ inputTokens: 230, outputTokens: 18, totalTokens: 248, modelCalls: 2 });
    expect(h.model.requests.every((r) => r.stream && r.body.stream_options?.include_usage === true)).toBe(true);

    h.model.requests.length = 0;
    h.model.setScript([
      pingCall('b1', { prompt_tokens: 40, completion_tokens: 2 }),
      { content: 'unary answer', usage: { prompt_tokens: 45, completion_tokens: 3 } },
    ]);
    await h.tiller.startTurn({ agent: 'unary', input: 'go', turnId: plain });
    const u = await h.tiller.result(plain);
    expect(u.usage).toEqual({ inputTokens: 85, outputTokens: 5, totalTokens: 90, modelCalls: 2 });
    expect(h.model.requests.some((r) => r.stream)).toBe(false);
  });
});

test('the tools reach the model as JSON Schema generated from zod, and tool results come back in order', async () => {
  h.model.setScript([pingCall('t1', { prompt_tokens: 1, completion_tokens: 1 }), { content: 'done' }]);
  await (
    await worker()
  ).runUntil(async () => {
    const turnId = h.turnId('schema');
    await h.tiller.startTurn({ agent: 'unary', input: 'go', turnId });
    await h.tiller.result(turnId);
  });
  const body = h.model.requests[0]!.body;
  expect(body.model).toBe('scripted');
  expect(body.messages[0]).toEqual({ role: 'system', content: 'x' });
  expect(body.tools).toEqual([
    {
      type: 'function',
      function: { name: 'ping', description: 'ping', parameters: expect.objectContaining({ type: 'object' }) },
    },
  ]);
  expect(h.model.requests[1]!.body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 't1', content: 'pong' });
});

test('429 with retry-after is retried by Temporal; garbage is retried; the turn completes with one call counted', async () => {
  h.model.setScript([
    { error: { status: 429, message: 'slow down', headers: { 'retry-after-ms': '50' } } },
    { garbage: 'this is not json', status: 200 },
    { content: 'finally', usage: { prompt_tokens: 9, completion_tokens: 4 } },
  ]);
  const turnId = h.turnId('retry');
  await (
    await worker()
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'unary', input: 'go', turnId });
    const result = await h.tiller.result(turnId);
    expect(result).toMatchObject({ status: 'completed', output: 'finally' });
    expect(result.usage).toEqual({ inputTokens: 9, outputTokens: 4, totalTokens: 13, modelCalls: 1 });
    await recordFixture(h.client, turnId, 'model-retried');
  });
  expect(h.model.requests).toHaveLength(3);
  const history = await h.client.workflow.getHandle(turnId).fetchHistory();
  const modelStarts = history.events!.filter(
    (e) => e.activityTaskStartedEventAttributes && e.activityTaskStartedEventAttributes.attempt === 3,
  );
  expect(modelStarts).toHaveLength(1);
});

test('400 from the model fails the turn at once with a clear, typed error and the state intact', async () => {
  h.model.setScript([{ error: { status: 400, message: 'messages[0] is invalid' } }]);
  const turnId = h.turnId('bad-request');
  await (
    await worker()
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'unary', input: 'go', turnId });
    const err = await h.client.workflow
      .getHandle(turnId)
      .result()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause?.message).toMatch(
      /model call 1 failed: ModelBadRequest: model endpoint answered 400: .*messages\[0\] is invalid/,
    );
    const result = await h.tiller.result(turnId);
    expect(result.status).toBe('failed');
    const state = await h.tiller.state(turnId);
    expect(state.status).toBe('failed');
    expect(state.events.map((e) => e.type)).toEqual(['AGENT_STARTED', 'TURN_FAILED']);
    await recordFixture(h.client, turnId, 'model-400');
  });
  expect(h.model.requests).toHaveLength(1);
});

test('maxModelCalls reached is a clear failure, not a hang', async () => {
  h.model.setScript((req) => pingCall(`loop${req.index}`, { prompt_tokens: 1, completion_tokens: 1 }));
  const turnId = h.turnId('limit');
  await (
    await worker()
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'limited', input: 'go', turnId });
    const result = await h.tiller.result(turnId);
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/maxModelCalls \(2\) reached/);
    expect(result.usage.modelCalls).toBe(2);
    expect(result.toolCalls.map((c) => c.status)).toEqual(['succeeded', 'failed']);
    expect(result.toolCalls[1]?.error).toMatch(/not completed: the turn failed/);
  });
  expect(h.model.requests).toHaveLength(2);
});
