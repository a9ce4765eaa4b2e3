/**
 * Plain answers from llama-server with a real model, streamed (the default) and not: the answer Tiller
 * records is the text the server sent (the stream's content deltas joined), the usage the server's own,
 * and an answer cut at its token limit (`finish_reason: length`) is not taken as the final answer.
 */
import { WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { defineAgent } from '../../src/agents/define';
import { expectRecordedAsServed, expectUsageAsServed } from './support/expect-wire';
import { createRealHarness, type RealHarness } from './support/harness';
import { serverText } from './support/wire-tap';

const settings = { maxTokens: 128, temperature: 0, seed: 42 };
const instructions = 'You are a friendly assistant. Answer in one short sentence.';
const agents = [
  defineAgent({ name: 'streamed', instructions, tools: [], modelSettings: settings }),
  defineAgent({ name: 'unstreamed', instructions, tools: [], modelSettings: settings, stream: false }),
  defineAgent({ name: 'cut', instructions, tools: [], modelSettings: { ...settings, maxTokens: 3 } }),
];

let h: RealHarness;
beforeAll(async () => {
  h = await createRealHarness();
});
afterAll(async () => {
  await h?.close();
});

async function runTurn(agent: string, input: string) {
  const turnId = h.turnId(agent);
  return h.withWorker(agents, async () => {
    await h.tiller.startTurn({ agent, input, turnId });
    return { result: await h.tiller.result(turnId), state: await h.tiller.state(turnId) };
  });
}

test('a streamed turn records the text the server streamed, and the usage the server reported', async () => {
  const input = 'Say hello to Ada.';
  const { result, state } = await runTurn('streamed', input);
  expect(result.status).toBe('completed');
  const exchanges = await h.tap.exchanges(input);
  expect(exchanges).toHaveLength(1);
  const served = exchanges[0]!;
  expect(served.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  // Streamed for real: more than one content delta, then a finish.
  expect(served.chunks.filter((c) => c.choices?.[0]?.delta?.content).length).toBeGreaterThan(1);
  expect(served.chunks.some((c) => c.choices?.[0]?.finish_reason === 'stop')).toBe(true);
  expect(serverText(served).length).toBeGreaterThan(0);
  expect(result.output).toBe(serverText(served));
  expect(state.events.map((e) => e.type)).toEqual(['AGENT_STARTED', 'MODEL_CALLED', 'TURN_COMPLETED']);
  expect(state.events[1]).toMatchObject({ finishReason: 'stop', text: serverText(served) });
  expectRecordedAsServed(state, exchanges);
  expectUsageAsServed(result.usage, exchanges);
});

test('a turn with stream: false records the JSON answer and its usage', async () => {
  const input = 'Say goodbye to Ada.';
  const { result, state } = await runTurn('unstreamed', input);
  expect(result.status).toBe('completed');
  const exchanges = await h.tap.exchanges(input);
  expect(exchanges).toHaveLength(1);
  expect(exchanges[0]!.body.stream).toBeFalsy();
  expect(result.output).toBe(serverText(exchanges[0]!));
  expectRecordedAsServed(state, exchanges);
  expectUsageAsServed(result.usage, exchanges);
});

test('an answer cut at max_tokens (finish_reason length) fails the turn as ModelTruncated, not as a final answer', async () => {
  const input = 'Tell me about the history of computing.';
  const turnId = h.turnId('cut');
  const { failure, state } = await h.withWorker(agents, async () => {
    await h.tiller.startTurn({ agent: 'cut', input, turnId });
    const failure = await h.tiller
      .handle(turnId)
      .result()
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    return { failure, state: await h.tiller.state(turnId) };
  });
  const exchanges = await h.tap.exchanges(input);
  expect(exchanges).toHaveLength(1);
  expect(exchanges[0]!.chunks.some((c) => c.choices?.[0]?.finish_reason === 'length')).toBe(true);
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  expect(((failure as WorkflowFailedError).cause as ApplicationFailure).type).toBe('ModelTruncated');
  expect(state.status).toBe('failed');
  expect(state.events.map((e) => e.type)).toEqual(['AGENT_STARTED', 'MODEL_CALLED', 'TURN_FAILED']);
  expect(state.events[1]).toMatchObject({ finishReason: 'length' });
  expectUsageAsServed(state.usage, exchanges);
});
