/**
 * Wire-protocol conformance of the model activity: what OpenAI-compatible servers send (OpenAI,
 * llama.cpp's llama-server, llama-cpp-python, vLLM, Ollama, DeepSeek, OpenRouter, Gemini's compatibility
 * layer), hand-written after their published formats and reported quirks in
 * test/fixtures/model-streams/hand-written/ (not recorded: see its README; the real llama-server
 * recordings are replayed by test/unit/llama-recordings.test.ts), served verbatim into `callModel` through the real
 * `openai` SDK. Each quirk has a defined outcome: parsed into the response the workflow records, or a
 * failure Temporal retries (never an answer nobody gave). What the turn then does with a parsed response
 * (a tool error the model reads, a failed turn) is in test/integration/model-conformance.test.ts.
 */
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import OpenAI from 'openai';
import { createModelActivities } from '../../src/activities/model';
import type { ModelRequest, ModelResponse } from '../../src/core/spec';
import { recorded, startRecordedModel, type RecordedModel } from '../support/recorded-model';

let model: RecordedModel;
let callModel: (req: ModelRequest) => Promise<ModelResponse>;
beforeAll(async () => {
  model = await startRecordedModel();
  const client = new OpenAI({ baseURL: model.url, apiKey: 'sk-conformance-test-key', maxRetries: 0 });
  callModel = createModelActivities({ client }).callModel;
});
afterAll(() => model.close());

/** The activity's context, its failure logs silenced (the failures are what these tests expect). */
const activityEnv = () => new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });

const request = (stream: boolean): ModelRequest => ({
  model: 'm',
  stream,
  turnId: 't',
  call: 1,
  messages: [
    { role: 'system', content: 'You help with files.' },
    { role: 'user', content: 'Read notes.txt' },
  ],
  tools: [
    { name: 'read_file', description: 'read a file', parameters: { type: 'object' } },
    { name: 'delete_file', description: 'delete a file', parameters: { type: 'object' } },
  ],
});

/** The activity's answer to a request served `file`. */
async function replay(file: string, stream = true): Promise<ModelResponse> {
  model.serve(recorded(file));
  return (await activityEnv().run(callModel, request(stream))) as ModelResponse;
}

/** The failure the activity throws for a request served `file`. */
async function failure(file: string, stream = true): Promise<ApplicationFailure> {
  const err = await replay(file, stream).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

const calls = (r: ModelResponse) =>
  (r.message.tool_calls ?? []).map((c) => [c.id, c.function.name, c.function.arguments]);

describe('tool calls', () => {
  test('arguments split over many deltas, with the id only on the first (OpenAI): joined under that id', async () => {
    const r = await replay('hand-written/chat/split-args-index-only.sse');
    expect(calls(r)).toEqual([['call_abc', 'read_file', '{"path":"notes.txt"}']]);
    expect(r.finishReason).toBe('tool_calls');
    expect(r.usage).toEqual({ inputTokens: 81, outputTokens: 17, totalTokens: 98 });
    expect(r.usageSource).toBe('stream');
  });

  test('two calls interleaved in one stream: each gets its own arguments, in index order', async () => {
    const r = await replay('hand-written/chat/interleaved-calls.sse');
    expect(calls(r)).toEqual([
      ['call_a', 'read_file', '{"path":"a.txt"}'],
      ['call_b', 'delete_file', '{"path":"b.txt"}'],
    ]);
  });

  test('the function name repeated in every delta (llama.cpp, llama-cpp-python): set once, not appended', async () => {
    const r = await replay('hand-written/chat/name-repeated.sse');
    expect(calls(r)).toEqual([['call_x', 'read_file', '{"path": "notes.txt"}']]);
  });

  test('calls without an index, each whole in one delta (Gemini compatibility): told apart by id', async () => {
    const r = await replay('hand-written/chat/no-index.sse');
    expect(calls(r)).toEqual([
      ['call_g1', 'read_file', '{"path":"a.txt"}'],
      ['call_g2', 'read_file', '{"path":"b.txt"}'],
    ]);
  });

  test('arguments that are not JSON are passed on as sent (the turn tells the model, as a tool error)', async () => {
    const r = await replay('hand-written/chat/invalid-json-args.sse');
    expect(calls(r)).toEqual([['call_j', 'read_file', '{path: notes.txt']]);
  });

  test('a tool the agent never offered is passed on as asked (the turn refuses it, as a tool error)', async () => {
    const r = await replay('hand-written/chat/unoffered-tool.sse');
    expect(calls(r)).toEqual([['call_u', 'rm_rf', '{"path":"/"}']]);
  });

  test('finish_reason stop with tool calls (Ollama): the calls stand', async () => {
    const r = await replay('hand-written/chat/stop-with-tool-calls.sse');
    expect(calls(r)).toEqual([['call_o', 'read_file', '{"path":"notes.txt"}']]);
    expect(r.finishReason).toBe('stop');
  });

  test('unary: a call without `type` and with an object for arguments is read as a function call', async () => {
    const r = await replay('hand-written/chat-unary/untyped-object-args.json', false);
    expect(calls(r)).toEqual([['call_t', 'read_file', '{"path":"notes.txt"}']]);
    expect(r.usageSource).toBe('response');
  });

  test('finish_reason tool_calls with neither a call nor text: retried, never an empty answer', async () => {
    const f = await failure('hand-written/chat/tool-calls-without-calls.sse');
    expect([f.type, f.nonRetryable]).toEqual(['ModelBadResponse', false]);
  });
});

describe('how a response ends', () => {
  test('an empty event stream with HTTP 200 (llama-cpp-python when its handler fails): retried', async () => {
    const f = await failure('hand-written/chat/empty-200.sse');
    expect([f.type, f.nonRetryable]).toEqual(['ModelBadResponse', false]);
    expect(f.message).toMatch(/ended without a finish_reason, with nothing in it/);
  });

  test('a stream cut after part of the answer, no finish_reason: retried', async () => {
    const f = await failure('hand-written/chat/cut-mid-stream.sse');
    expect([f.type, f.nonRetryable]).toEqual(['ModelBadResponse', false]);
    expect(f.message).toMatch(/after part of an answer/);
  });

  test('only empty choices (no delta ever): retried', async () => {
    const f = await failure('hand-written/chat/empty-choices-only.sse');
    expect(f.type).toBe('ModelBadResponse');
  });

  test('unary with empty choices: retried', async () => {
    const f = await failure('hand-written/chat-unary/empty-choices.json', false);
    expect([f.type, f.nonRetryable]).toEqual(['ModelBadResponse', false]);
  });

  test('finish_reason length: reported as such (the turn fails ModelTruncated or accepts, as the agent says)', async () => {
    const r = await replay('hand-written/chat/length.sse');
    expect([r.finishReason, r.message.content]).toEqual(['length', 'The three reasons are: first, the']);
  });

  test('finish_reason content_filter: reported as such (the turn fails ModelRefused)', async () => {
    const r = await replay('hand-written/chat/content-filter.sse');
    expect(r.finishReason).toBe('content_filter');
  });

  test('a later chunk with finish_reason null does not take back the finish', async () => {
    const r = await replay('hand-written/chat/finish-then-null.sse');
    expect([r.finishReason, r.message.content, r.usage.totalTokens]).toEqual(['stop', 'Done.', 7]);
  });

  test('an error object mid-stream: retried, with the server words', async () => {
    const f = await failure('hand-written/chat/error-event.sse');
    expect(f.nonRetryable).toBe(false);
    expect(f.message).toMatch(/upstream model crashed/);
  });

  test('a refusal (OpenAI structured outputs) is reported, not taken as text', async () => {
    const r = await replay('hand-written/chat/refusal.sse');
    expect(r.message.content).toBeNull();
    expect(r.refusal).toBe("I'm sorry, I can't help with that.");
    const u = await replay('hand-written/chat-unary/refusal.json', false);
    expect(u.refusal).toBe("I can't help with that.");
  });
});

describe('usage', () => {
  test('a server that ignores include_usage: estimated from the text and marked, never zero', async () => {
    const r = await replay('hand-written/chat/no-usage.sse');
    expect(r.usageSource).toBe('estimated');
    expect(r.usage.inputTokens).toBeGreaterThan(0);
    expect(r.usage.outputTokens).toBeGreaterThan(0);
    expect(r.usage.totalTokens).toBe(r.usage.inputTokens + r.usage.outputTokens);
  });

  test('cumulative usage on every chunk: the last count, never the sum', async () => {
    const r = await replay('hand-written/chat/cumulative-usage.sse');
    expect(r.usage).toEqual({ inputTokens: 10, outputTokens: 3, totalTokens: 13 });
  });

  test('unary without usage: estimated and marked', async () => {
    const r = await replay('hand-written/chat-unary/no-usage-reasoning.json', false);
    expect(r.usageSource).toBe('estimated');
    expect(r.usage.outputTokens).toBeGreaterThan(0);
  });

  test('the request asks for usage in the stream', async () => {
    await replay('hand-written/chat/no-usage.sse');
    expect(model.requests.at(-1)).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });
});

describe('reasoning', () => {
  test('reasoning_content deltas (DeepSeek, vLLM, llama.cpp) are kept out of the answer', async () => {
    const r = await replay('hand-written/chat/reasoning-content.sse');
    expect(r.message.content).toBe('Hi!');
    expect(r.reasoning).toBe('The user wants a greeting. Keep it short.');
  });

  test('a `reasoning` field (OpenRouter, Ollama) likewise', async () => {
    const r = await replay('hand-written/chat/reasoning-field.sse');
    expect([r.message.content, r.reasoning]).toEqual(['Answer.', 'Think first.']);
  });

  test('unary reasoning_content likewise', async () => {
    const r = await replay('hand-written/chat-unary/no-usage-reasoning.json', false);
    expect([r.message.content, r.reasoning]).toEqual(['42', '6 times 7.']);
  });
});

describe('hostile streams', () => {
  const sse = (...chunks: unknown[]) =>
    chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';
  const chunk = (delta: unknown, finish: string | null = null) => ({
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const serveAndFail = async (body: string) => {
    model.serve(body);
    const err = await activityEnv()
      .run(callModel, request(true))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ApplicationFailure);
    return err as ApplicationFailure;
  };

  test('a tool call index out of range: retried', async () => {
    const f = await serveAndFail(sse(chunk({ tool_calls: [{ index: 1e9, function: { name: 'x' } }] }, 'tool_calls')));
    expect(f.message).toMatch(/bad index/);
  });

  test('choices that are not a list, a delta whose tool_calls are not a list: retried', async () => {
    expect((await serveAndFail(sse({ choices: 'nope' }))).type).toBe('ModelBadResponse');
    expect((await serveAndFail(sse(chunk({ tool_calls: { index: 0 } }, 'stop')))).type).toBe('ModelBadResponse');
  });

  test('content that is not a string is ignored; a stream past the size a turn records is refused', async () => {
    model.serve(sse(chunk({ content: { evil: true } }), chunk({ content: 'ok' }, 'stop')));
    const r = (await activityEnv().run(callModel, request(true))) as ModelResponse;
    expect(r.message.content).toBe('ok');
    const big = 'x'.repeat(600_000);
    const f = await serveAndFail(sse(chunk({ content: big }), chunk({ content: big }, 'stop')));
    expect(f.message).toMatch(/past the size a turn records/);
  });

  test('a thousand finish-less chunks of reasoning are bounded, and the stream still needs a finish', async () => {
    const many = Array.from({ length: 1_000 }, () => chunk({ reasoning_content: 'y'.repeat(100) }));
    expect((await serveAndFail(sse(...many))).message).toMatch(/without a finish_reason/);
    model.serve(sse(...many, chunk({ content: 'done' }, 'stop')));
    const r = (await activityEnv().run(callModel, request(true))) as ModelResponse;
    expect(r.reasoning!.length).toBeLessThanOrEqual(8_000);
  });

  test('usage that is not a count is not counted: estimated instead', async () => {
    model.serve(sse({ ...chunk({ content: 'hi' }, 'stop'), usage: { prompt_tokens: -5, completion_tokens: 'many' } }));
    const r = (await activityEnv().run(callModel, request(true))) as ModelResponse;
    expect(r.usageSource).toBe('estimated');
  });

  test('a finish_reason too long to be a name is clipped', async () => {
    model.serve(sse(chunk({ content: 'hi' }, 'z'.repeat(10_000))));
    const r = (await activityEnv().run(callModel, request(true))) as ModelResponse;
    expect(r.finishReason!.length).toBeLessThanOrEqual(200);
  });
});
