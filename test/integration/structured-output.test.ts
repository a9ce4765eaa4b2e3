/**
 * Structured output (`defineAgent({ output })`) against the dev server and the scripted model over HTTP:
 * `response_format` json_schema (strict) on the calls, the answer parsed and validated into `parsed`,
 * an invalid answer sent back to the model with the error (counted in usage), then `InvalidOutput`.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { FailureType } from '../../src/core/failures';
import { recordFixture } from '../support/fixtures';
import { createHarness, type Harness } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.model.requests.length = 0;
});

const Person = z.object({ name: z.string(), age: z.number().int() });
const agents = [
  defineAgent({ name: 'extractor', instructions: 'x', tools: [], output: Person }),
  defineAgent({
    name: 'strict-once',
    instructions: 'x',
    tools: [],
    output: Person,
    maxOutputRetries: 1,
    stream: false,
  }),
];
const run = <T>(fn: () => Promise<T>) => h.withWorker(fn, { agents, tools: [] });

test('the answer is asked for with a strict json_schema, parsed, and carried in the result and state', async () => {
  h.model.setScript([{ json: { name: 'Ada', age: 36 } }]);
  const turnId = h.turnId('structured');
  await run(async () => {
    await h.tiller.startTurn({ agent: 'extractor', input: 'Ada, 36', turnId });
    const result = await h.tiller.result(turnId, Person);
    expect(result.status).toBe('completed');
    const person: { name: string; age: number } | undefined = result.parsed;
    expect(person).toEqual({ name: 'Ada', age: 36 });
    expect(JSON.parse(result.output)).toEqual({ name: 'Ada', age: 36 });
    expect((await h.tiller.state(turnId)).parsed).toEqual({ name: 'Ada', age: 36 });
  });
  expect(h.model.requests[0]!.body.response_format).toEqual({
    type: 'json_schema',
    json_schema: {
      name: 'extractor_output',
      strict: true,
      schema: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          age: { type: 'integer', minimum: expect.any(Number), maximum: expect.any(Number) },
        },
        required: ['name', 'age'],
        additionalProperties: false,
      },
    },
  });
});

test('an invalid answer goes back to the model with the error, and the retries count in usage', async () => {
  h.model.setScript([
    { content: 'Ada is 36' },
    { json: { name: 'Ada', age: 'old' } },
    { json: { name: 'Ada', age: 36 } },
  ]);
  const turnId = h.turnId('structured-retry');
  await run(async () => {
    await h.tiller.startTurn({ agent: 'extractor', input: 'Ada, 36', turnId });
    const result = await h.tiller.result(turnId, Person);
    expect(result.status).toBe('completed');
    expect(result.parsed).toEqual({ name: 'Ada', age: 36 });
    expect(result.usage.modelCalls).toBe(3);
    const state = await h.tiller.state(turnId);
    const invalid = state.events.filter((e) => e.type === 'OUTPUT_INVALID');
    expect(invalid).toEqual([
      expect.objectContaining({ call: 1, attempt: 1, error: expect.stringContaining('the answer is not JSON') }),
      expect.objectContaining({ call: 2, attempt: 2, error: expect.stringContaining('age:') }),
    ]);
    await recordFixture(h.client, turnId, 'structured-output-retried');
  });
  // What went back to the model: its answer, then the validation error as the user.
  const second = h.model.requests[1]!.body.messages;
  expect(second.at(-2)).toEqual({ role: 'assistant', content: 'Ada is 36' });
  expect(second.at(-1)).toEqual({
    role: 'user',
    content: expect.stringMatching(/^Your answer does not match the required output schema: the answer is not JSON/),
  });
  expect(h.model.requests.every((r) => r.body.response_format?.type === 'json_schema')).toBe(true);
});

test('past its retries the turn fails InvalidOutput, with the result in the failure', async () => {
  h.model.setScript([{ content: 'no' }, { json: { name: 'Ada' } }]);
  const turnId = h.turnId('structured-fail');
  await run(async () => {
    await h.tiller.startTurn({ agent: 'strict-once', input: 'Ada, 36', turnId });
    const failure = await h.tiller
      .handle(turnId)
      .result()
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe(FailureType.InvalidOutput);
    expect(cause.message).toMatch(/^InvalidOutput: the answer did not match the output schema after 2 attempts: age:/);
    const result = await h.tiller.result(turnId);
    expect(result.status).toBe('failed');
    expect(result.parsed).toBeUndefined();
    expect(result.usage.modelCalls).toBe(2);
    expect(result.error).toMatch(/^InvalidOutput/);
  });
  expect(h.model.requests).toHaveLength(2);
});

test('an agent whose output is not a zod schema is refused at definition', () => {
  expect(() =>
    defineAgent({ name: 'bad', instructions: 'x', tools: [], output: { type: 'object' } as unknown as z.ZodType }),
  ).toThrow('agent bad: output must be a zod schema');
  expect(() =>
    defineAgent({ name: 'bad', instructions: 'x', tools: [], output: Person, maxOutputRetries: 11 }),
  ).toThrow('agent bad: maxOutputRetries must be an integer from 0 to 10');
});
