/**
 * A structured-output agent (`defineAgent({ output })`) against llama-server with a real model: the
 * schema goes out as `response_format` json_schema, the server's answer is parsed and validated into
 * `parsed`, and the usage is the server's own.
 */
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { expectRecordedAsServed, expectUsageAsServed } from './support/expect-wire';
import { createRealHarness, type RealHarness } from './support/harness';
import { serverText } from './support/wire-tap';

const Person = z.object({ name: z.string(), age: z.number().int() });
const extractor = defineAgent({
  name: 'extractor',
  instructions: 'Extract the person the user mentions, as JSON with their name and age.',
  tools: [],
  output: Person,
  modelSettings: { maxTokens: 64, temperature: 0, seed: 42 },
});

let h: RealHarness;
beforeAll(async () => {
  h = await createRealHarness();
});
afterAll(async () => {
  await h?.close();
});

test('the answer is asked for with a json_schema, parsed and validated into the result and state', async () => {
  const input = 'Ada Lovelace was 36 years old.';
  const turnId = h.turnId('structured');
  const { result, state } = await h.withWorker([extractor], async () => {
    await h.tiller.startTurn({ agent: 'extractor', input, turnId });
    return { result: await h.tiller.result(turnId, Person), state: await h.tiller.state(turnId) };
  });
  expect(result.status).toBe('completed');
  const exchanges = await h.tap.exchanges(input);
  // Grammar-constrained by the server: valid at the first answer, so no retry.
  expect(exchanges).toHaveLength(1);
  expect(exchanges[0]!.body.response_format).toMatchObject({
    type: 'json_schema',
    json_schema: { name: 'extractor_output', schema: expect.objectContaining({ required: ['name', 'age'] }) },
  });
  const served = JSON.parse(serverText(exchanges[0]!));
  expect(Person.safeParse(served).success).toBe(true);
  expect(result.parsed).toEqual(served);
  expect(state.parsed).toEqual(served);
  expect(state.events.map((e) => e.type)).toEqual(['AGENT_STARTED', 'MODEL_CALLED', 'TURN_COMPLETED']);
  expectRecordedAsServed(state, exchanges);
  expectUsageAsServed(result.usage, exchanges);
});
