/**
 * The Responses API wire (src/activities/model/responses.ts): recorded streams in OpenAI's documented event
 * format (test/fixtures/model-streams/hand-written/responses/, written after OpenAI's published format), and hostile variations of them, replayed through a
 * loopback HTTP server into `respond()` with the real `openai` SDK. Each has a defined outcome: an answer,
 * or a failure Temporal retries (or, where the server says asking again cannot help, does not). Then the
 * request: input items from a conversation with tool calls and reasoning, `previous_response_id` where the
 * provider keeps responses (and the full input where it does not, or has forgotten them).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import OpenAI from 'openai';
import { createModelActivities } from '../../src/activities/model';
import type { RawAnswer } from '../../src/activities/model/answer';
import type { Prompt } from '../../src/activities/model/prompt';
import { respond, responsesParams } from '../../src/activities/model/responses';
import { BOUNDS } from '../../src/core/bounds';
import { IDLE_CONNECTION_MS } from '../../src/testing/idle-connection';
import type { ChatMessage, ModelResponse } from '../../src/core/spec';

const FIXTURES = path.resolve(__dirname, '../fixtures/model-streams/hand-written/responses');
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');

/** One canned HTTP answer. */
interface Canned {
  status?: number;
  body: string;
  type?: string;
}

/** A loopback server answering each request with the next canned answer (the last one repeats). */
let server: http.Server;
let url: string;
let canned: Canned[] = [];
let served = 0;
const requests: Record<string, any>[] = [];

beforeAll(async () => {
  server = http.createServer({ keepAliveTimeout: IDLE_CONNECTION_MS }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      requests.push(body);
      const next = canned[Math.min(served++, canned.length - 1)] ?? { body: '' };
      const type = next.type ?? (body.stream === true ? 'text/event-stream' : 'application/json');
      res.writeHead(next.status ?? 200, { 'content-type': type });
      res.end(next.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
);
beforeEach(() => {
  requests.length = 0;
  canned = [];
  served = 0;
});

const serve = (...answers: (Canned | string)[]) => {
  canned = answers.map((a) => (typeof a === 'string' ? { body: a } : a));
  served = 0;
};
const client = () => new OpenAI({ baseURL: url, apiKey: 'test', maxRetries: 0, logLevel: 'off' });

const conversation: ChatMessage[] = [
  { role: 'system', content: 'You help with files.' },
  { role: 'user', content: 'Read notes.txt' },
];
const tools = [
  { name: 'read_file', description: 'read a file', parameters: { type: 'object' } },
  { name: 'delete_file', description: 'delete a file', parameters: { type: 'object' } },
];
const prompt = (over: Partial<Prompt> = {}): Prompt => ({
  model: 'm',
  stream: true,
  turnId: 't',
  call: 1,
  api: 'responses',
  messages: conversation,
  tools,
  ...over,
});

/** `respond()`'s answer to a request served `answers`, and the text of every heartbeat. */
async function replay(
  answers: (Canned | string)[],
  over: Partial<Prompt> = {},
  store = false,
): Promise<{ raw: RawAnswer; beats: string[] }> {
  serve(...answers);
  const beats: string[] = [];
  const raw = await respond(client(), prompt(over), {
    signal: new AbortController().signal,
    beat: (t) => beats.push(t),
    store,
  });
  return { raw, beats };
}

/** The failure `respond()` throws for a request served `answers`. */
async function failure(answers: (Canned | string)[], over: Partial<Prompt> = {}): Promise<ApplicationFailure> {
  const err = await replay(answers, over).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

/** A stream of these events, in OpenAI's format (`event:` name, `data:` JSON with the type and sequence number). */
const events = (...list: Record<string, unknown>[]) =>
  list.map((e, i) => `event: ${String(e.type)}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`).join('');
const created = { type: 'response.created', response: { id: 'resp_1', object: 'response', status: 'in_progress' } };
const completed = (output: unknown[] = [], usage: unknown = null) => ({
  type: 'response.completed',
  response: { id: 'resp_1', object: 'response', status: 'completed', output, usage },
});
const textDelta = (delta: unknown) => ({
  type: 'response.output_text.delta',
  item_id: 'msg_1',
  output_index: 0,
  content_index: 0,
  delta,
});

const REASONING_ITEM = {
  id: 'rs_6851d2c5b5b881918d2f6f0c3e1a9b7c0a4b0b8f6f4d1e3c',
  type: 'reasoning',
  summary: [
    {
      type: 'summary_text',
      text: '**Reading the file**\n\nThe user wants the contents of notes.txt, so I should call read_file with that path.',
    },
  ],
  encrypted_content: expect.stringMatching(/^gAAAAA/),
};

describe('recorded Responses streams', () => {
  test('OpenAI: a reasoning item and a function call, arguments in deltas → the call, the summary, the item kept whole', async () => {
    const { raw, beats } = await replay([fixture('reasoning-function-call.sse')]);
    expect(raw).toEqual({
      content: null,
      calls: [{ id: 'call_Xq3bGk9vT2mN8pL4', name: 'read_file', arguments: '{"path":"notes.txt"}' }],
      finishReason: 'tool_calls',
      usage: { inputTokens: 81, outputTokens: 145, totalTokens: 226 },
      reasoning: REASONING_ITEM.summary[0]!.text,
      responses: { id: 'resp_6851d2c4e0a88191b6c1f0b2a4e1c7a20a4b0b8f6f4d1e3c', reasoning: [REASONING_ITEM] },
    });
    // A heartbeat on every event (the worker throttles them), with the text so far (none here).
    expect(beats).toHaveLength(20);
    expect(new Set(beats)).toEqual(new Set(['']));
  });

  test('the same response whole (not streamed) reads the same', async () => {
    const streamed = (await replay([fixture('reasoning-function-call.sse')])).raw;
    const { raw, beats } = await replay([fixture('reasoning-function-call.json')], { stream: false });
    expect(raw).toEqual(streamed);
    expect(beats).toEqual([]);
    expect(requests.at(-1)!.stream).toBe(false);
  });

  test('a text answer: the deltas joined, finish stop, the text so far in each heartbeat', async () => {
    const { raw, beats } = await replay([fixture('text-answer.sse')]);
    expect(raw).toMatchObject({
      content: 'notes.txt says: buy milk.',
      calls: [],
      finishReason: 'stop',
      usage: { inputTokens: 40, outputTokens: 9, totalTokens: 49 },
      responses: { id: 'resp_68520a1f3c7c8190a1b2c3d4e5f60718' },
    });
    expect(raw.reasoning).toBeUndefined();
    expect(beats).toContain('notes.txt says');
    expect(beats.at(-1)).toBe('notes.txt says: buy milk.');
  });

  test('two calls whose argument deltas interleave, and no done events or final output: each call its own arguments', async () => {
    const { raw } = await replay([fixture('interleaved-calls.sse')]);
    expect(raw.calls).toEqual([
      { id: 'call_a', name: 'read_file', arguments: '{"path":"a.txt"}' },
      { id: 'call_b', name: 'delete_file', arguments: '{"path":"b.txt"}' },
    ]);
    expect(raw.finishReason).toBe('tool_calls');
  });

  test('response.incomplete (max_output_tokens): the cut text, finish length (the turn fails or accepts it, as the agent says)', async () => {
    const { raw } = await replay([fixture('incomplete-max-output-tokens.sse')]);
    expect(raw).toMatchObject({ content: 'notes.txt says: buy', finishReason: 'length' });
  });

  test('response.incomplete (content_filter): finish content_filter', async () => {
    const { raw } = await replay([fixture('incomplete-content-filter.sse')]);
    expect(raw).toMatchObject({ content: 'notes.txt', finishReason: 'content_filter' });
  });

  test('a refusal: its words as the refusal, no text', async () => {
    const { raw } = await replay([fixture('refusal.sse')]);
    expect(raw).toMatchObject({ content: null, refusal: "I can't help with that.", finishReason: 'stop' });
  });

  test('unknown event types (and known ones Tiller does not need) are ignored', async () => {
    const plain = (await replay([fixture('text-answer.sse')])).raw;
    const { raw } = await replay([fixture('unknown-events.sse')]);
    expect(raw).toEqual(plain);
  });

  test('a server that sends the items only in the final response, and no usage: read from it, usage left unknown', async () => {
    const { raw } = await replay([fixture('final-output-only-no-usage.sse')]);
    expect(raw.content).toBe('notes.txt says: buy milk.');
    expect(raw.usage).toBeUndefined();
  });

  test('a stream cut before response.completed: a retryable failure, never an answer', async () => {
    const f = await failure([fixture('cut-before-completed.sse')]);
    expect(f.type).toBe('ModelBadResponse');
    expect(f.nonRetryable).toBe(false);
    expect(f.message).toMatch(
      /stream ended without response.completed or response.incomplete, after part of an answer/,
    );
  });

  test('an empty event stream (HTTP 200, nothing in it): a retryable failure', async () => {
    const f = await failure(['']);
    expect(f.message).toMatch(/stream ended without .* with nothing in it/);
    expect(f.nonRetryable).toBe(false);
  });

  test('an error event: a retryable failure that carries its code and message', async () => {
    const f = await failure([fixture('error-event.sse')]);
    expect(f.type).toBe('ModelBadResponse');
    expect(f.nonRetryable).toBe(false);
    expect(f.message).toMatch(/the stream reported an error \(server_error\): The server had an error/);
  });

  test('an error event whose code says the request is wrong is not retried; a rate limit is, as one', async () => {
    const stream = (code: string) => events(created, { type: 'error', code, message: 'no', param: null });
    const tooLong = await failure([stream('context_length_exceeded')]);
    expect(tooLong).toMatchObject({ type: 'ModelBadRequest', nonRetryable: true });
    const limited = await failure([stream('rate_limit_exceeded')]);
    expect(limited).toMatchObject({ type: 'ModelRateLimited', nonRetryable: false });
  });

  test('an event with an `error` field (the SDK throws it): the same failure', async () => {
    const f = await failure([events(created, { type: 'error', error: { code: 'server_error', message: 'boom' } })]);
    expect(f).toMatchObject({ type: 'ModelBadResponse', nonRetryable: false });
    expect(f.message).toMatch(/\(server_error\): boom/);
  });

  test('response.failed: a retryable failure with the response error', async () => {
    const f = await failure([fixture('failed.sse')]);
    expect(f.type).toBe('ModelBadResponse');
    expect(f.nonRetryable).toBe(false);
    expect(f.message).toMatch(/the response failed \(server_error\): The model failed to generate a response/);
  });
});

describe('hostile values', () => {
  test('a text delta that is not a string: an unusable response', async () => {
    const f = await failure([fixture('non-string-delta.sse')]);
    expect(f.message).toMatch(/a text delta that is not a string/);
  });

  test('a delta past the size a turn records: failed as it arrives', async () => {
    const huge = 'x'.repeat(BOUNDS.modelResponseBytes + 1);
    const f = await failure([events(created, textDelta(huge), completed())]);
    expect(f.message).toMatch(/streamed text past the size a turn records/);
  });

  test('arguments that grow past the size over many deltas: failed', async () => {
    const piece = 'a'.repeat(100_000);
    const deltas = Array.from({ length: 11 }, () => ({
      type: 'response.function_call_arguments.delta',
      output_index: 0,
      delta: piece,
    }));
    const f = await failure([events(created, ...deltas, completed())]);
    expect(f.message).toMatch(/streamed arguments past the size/);
  });

  test('an output_index far out of range: an unusable response', async () => {
    const f = await failure([fixture('bad-output-index.sse')]);
    expect(f.message).toMatch(/bad output_index/);
  });

  test('an event that is not JSON, or not an object, or a final event without a response', async () => {
    expect((await failure(['event: x\ndata: {oops\n\n'])).message).toMatch(/not JSON/);
    expect((await failure(['data: 42\n\n'])).message).toMatch(/not an object/);
    expect((await failure([events(created, { type: 'response.completed', response: 'done' })])).message).toMatch(
      /response.completed without a response/,
    );
  });

  test('wrong types in the final response: an id or usage that is not one is left out, not trusted', async () => {
    const final = {
      type: 'response.completed',
      response: { id: 42, status: 'completed', usage: { input_tokens: -1, output_tokens: 'many' } },
    };
    const { raw } = await replay([events(textDelta('hi'), final)]);
    expect(raw).toEqual({ content: 'hi', calls: [], finishReason: 'stop', usage: undefined });
  });

  test('a reasoning item nested past the depth Tiller accepts: an unusable response', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100; i++) deep = [deep];
    const item = { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'e', extra: deep };
    const f = await failure([events(created, completed([item]))]);
    expect(f.message).toMatch(/nested deeper/);
  });

  test('unary: an output that is not a list, an unknown status, items that are not objects, too many items', async () => {
    const unary = { stream: false };
    const body = (r: Record<string, unknown>) => JSON.stringify({ id: 'resp_1', object: 'response', ...r });
    expect((await failure([body({ status: 'completed', output: 5 })], unary)).message).toMatch(/could not read/);
    expect((await failure([JSON.stringify({ output: 5 })], unary)).message).toMatch(/no output list/);
    expect((await failure([body({ status: 'queued', output: [] })], unary)).message).toMatch(/status queued/);
    expect((await failure([body({ status: 'completed', output: [7] })], unary)).message).toMatch(/not an object/);
    const many = Array.from({ length: BOUNDS.callsReadPerResponse + 1 }, () => ({ type: 'function_call', name: 'f' }));
    expect((await failure([body({ status: 'completed', output: many })], unary)).message).toMatch(/output items/);
  });

  test('unary: a failed response, and a 200 whose body is an error', async () => {
    const unary = { stream: false };
    const failed = JSON.stringify({
      id: 'resp_1',
      object: 'response',
      status: 'failed',
      output: [],
      error: { code: 'server_error', message: 'down' },
    });
    expect(await failure([failed], unary)).toMatchObject({ type: 'ModelBadResponse', nonRetryable: false });
    const error = JSON.stringify({ error: { code: 'invalid_prompt', message: 'flagged' } });
    expect(await failure([error], unary)).toMatchObject({ type: 'ModelBadRequest', nonRetryable: true });
  });
});

describe('through the model activity', () => {
  test('an agent on the Responses API gets the response the workflow records for Chat Completions', async () => {
    serve(fixture('reasoning-function-call.sse'));
    const { callModel } = createModelActivities({ client: client() });
    const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
    const r = (await env.run(callModel, { ...prompt(), messages: conversation, tools })) as ModelResponse;
    expect(r).toMatchObject({
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_Xq3bGk9vT2mN8pL4',
            type: 'function',
            function: { name: 'read_file', arguments: '{"path":"notes.txt"}' },
          },
        ],
        responses: { reasoning: [REASONING_ITEM] },
      },
      usage: { inputTokens: 81, outputTokens: 145, totalTokens: 226 },
      usageSource: 'stream',
      finishReason: 'tool_calls',
      api: 'responses',
    });
    expect(requests[0]).toMatchObject({ model: 'm', stream: true, store: false });
  });
});

// ---------------------------------------------------------------------------------------------------

const rs1 = { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'enc-1' };
const rs2Stored = { type: 'reasoning', id: 'rs_2', summary: [{ type: 'summary_text', text: 'next' }] };
const turn: ChatMessage[] = [
  { role: 'system', content: 'You help with files.' },
  { role: 'user', content: 'Read then delete notes.txt' },
  {
    role: 'assistant',
    content: 'Let me read it.',
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"notes.txt"}' } }],
    responses: { id: 'resp_1', reasoning: [rs1] },
  },
  { role: 'tool', tool_call_id: 'c1', content: 'buy milk' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c2', type: 'function', function: { name: 'delete_file', arguments: '{"path":"notes.txt"}' } }],
    responses: { id: 'resp_2', reasoning: [rs2Stored] },
  },
  { role: 'tool', tool_call_id: 'c2', content: 'Deleted notes.txt' },
];
const fullInput = (withStored: boolean) => [
  { type: 'message', role: 'user', content: 'Read then delete notes.txt' },
  rs1,
  { type: 'message', role: 'assistant', content: 'Let me read it.' },
  { type: 'function_call', call_id: 'c1', name: 'read_file', arguments: '{"path":"notes.txt"}' },
  { type: 'function_call_output', call_id: 'c1', output: 'buy milk' },
  ...(withStored ? [rs2Stored] : []),
  { type: 'function_call', call_id: 'c2', name: 'delete_file', arguments: '{"path":"notes.txt"}' },
  { type: 'function_call_output', call_id: 'c2', output: 'Deleted notes.txt' },
];

describe('the request', () => {
  test('nothing kept (store false): instructions, every message as input items, reasoning before what it led to', () => {
    const params = responsesParams(prompt({ messages: turn }), false);
    expect(params).toEqual({
      model: 'm',
      instructions: 'You help with files.',
      // rs_2 has no encrypted_content: it only points at a kept response, which a provider that keeps nothing cannot resolve.
      input: fullInput(false),
      tools: [
        {
          type: 'function',
          name: 'read_file',
          description: 'read a file',
          parameters: { type: 'object' },
          strict: false,
        },
        {
          type: 'function',
          name: 'delete_file',
          description: 'delete a file',
          parameters: { type: 'object' },
          strict: false,
        },
      ],
      store: false,
      include: ['reasoning.encrypted_content'],
    });
  });

  test('kept (store true): previous_response_id is the last kept answer, and only what came after it is sent', () => {
    const params = responsesParams(prompt({ messages: turn }), true);
    expect(params).toMatchObject({
      instructions: 'You help with files.',
      previous_response_id: 'resp_2',
      input: [{ type: 'function_call_output', call_id: 'c2', output: 'Deleted notes.txt' }],
      store: true,
    });
    expect(params.include).toBeUndefined();
    // The first call of a turn has nothing to continue from.
    expect(responsesParams(prompt(), true)).toMatchObject({
      input: [{ type: 'message', role: 'user', content: 'Read notes.txt' }],
      store: true,
    });
    expect(responsesParams(prompt(), true).previous_response_id).toBeUndefined();
  });

  test('model settings as Responses fields (seed and stop left out), structured output as text.format, extraBody last', () => {
    const params = responsesParams(
      prompt({
        settings: {
          temperature: 0.2,
          topP: 0.9,
          maxTokens: 300,
          toolChoice: 'read_file',
          parallelToolCalls: false,
          reasoningEffort: 'low',
          seed: 7,
          stop: ['END'],
          extraBody: { reasoning: { summary: 'auto' }, truncation: 'auto', include: ['message.output_text.logprobs'] },
        },
        output: { name: 'answer', schema: { type: 'object' }, strict: true, maxRetries: 1, agent: 'a' },
      }),
      false,
    );
    expect(params).toMatchObject({
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 300,
      tool_choice: { type: 'function', name: 'read_file' },
      parallel_tool_calls: false,
      reasoning: { effort: 'low', summary: 'auto' },
      truncation: 'auto',
      include: ['message.output_text.logprobs', 'reasoning.encrypted_content'],
      text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true } },
    });
    expect(params).not.toHaveProperty('seed');
    expect(params).not.toHaveProperty('stop');
    expect(responsesParams(prompt({ settings: { toolChoice: 'required' } }), false).tool_choice).toBe('required');
  });

  test('on the wire: a kept previous response the server has forgotten (404) is asked again at once with the full input', async () => {
    const gone = {
      status: 404,
      body: JSON.stringify({
        error: {
          message: "Previous response with id 'resp_2' not found.",
          type: 'invalid_request_error',
          param: 'previous_response_id',
          code: 'previous_response_not_found',
        },
      }),
      type: 'application/json',
    };
    const { raw } = await replay([gone, fixture('text-answer.sse')], { messages: turn }, true);
    expect(raw.content).toBe('notes.txt says: buy milk.');
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({ previous_response_id: 'resp_2', store: true });
    expect(requests[0]!.input).toHaveLength(1);
    expect(requests[1]).not.toHaveProperty('previous_response_id');
    // rs_2 lived only in the forgotten response: left out of the full input.
    expect(requests[1]!.input).toEqual(fullInput(false));
  });

  test('OpenAI says it with a 400: the same', async () => {
    const gone = {
      status: 400,
      body: JSON.stringify({ error: { message: "Previous response with id 'resp_2' not found.", code: null } }),
      type: 'application/json',
    };
    const { raw } = await replay([gone, fixture('text-answer.sse')], { messages: turn, stream: true }, true);
    expect(raw.finishReason).toBe('stop');
    expect(requests.map((r) => r.previous_response_id)).toEqual(['resp_2', undefined]);
  });

  test('any other 404 (an unknown model), or any 404 where nothing is kept, is not asked again', async () => {
    const notFound = {
      status: 404,
      body: JSON.stringify({ error: { message: 'The model m does not exist', code: 'model_not_found' } }),
      type: 'application/json',
    };
    await expect(replay([notFound, fixture('text-answer.sse')], { messages: turn }, true)).rejects.toMatchObject({
      status: 404,
    });
    expect(requests).toHaveLength(1);
    requests.length = 0;
    const gone = { ...notFound, body: JSON.stringify({ error: { message: 'Previous response not found.' } }) };
    await expect(replay([gone, fixture('text-answer.sse')], { messages: turn }, false)).rejects.toMatchObject({
      status: 404,
    });
    expect(requests).toHaveLength(1);
  });
});
