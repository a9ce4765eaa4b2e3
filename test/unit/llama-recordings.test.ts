/**
 * Every real llama-server recording (test/fixtures/model-streams/llama-server/, recorded verbatim by
 * `npm run record:llama-streams`) served into the model activity through the real `openai` SDK, with the
 * request it was recorded for. What the activity answers is checked against what the recording itself
 * says, read here independently of the activity's parser: the text (the content deltas joined), the tool
 * calls (names and joined arguments, by index), the finish reason, and the server's usage. Issue 34: these
 * recordings were used by no test; the other conformance fixtures are hand-written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import OpenAI from 'openai';
import { createModelActivities } from '../../src/activities/model';
import type { ModelRequest, ModelResponse } from '../../src/core/spec';
import { startRecordedModel, STREAMS, type RecordedModel } from '../support/recorded-model';

const DIR = path.join(STREAMS, 'llama-server');
type Json = Record<string, any>;

/** Every case: `<case>.request.json` beside `<case>.sse` or `<case>.json`. */
const CASES = fs
  .readdirSync(DIR)
  .filter((f) => f.endsWith('.request.json'))
  .map((f) => f.slice(0, -'.request.json'.length))
  .sort();

interface Said {
  content: string;
  calls: [string, string][];
  finishReason: string | undefined;
  usage: Json | undefined;
}

/** What a recorded body says, read straight from its chunks (or its one message). */
function said(name: string): Said {
  const sse = path.join(DIR, `${name}.sse`);
  if (!fs.existsSync(sse)) {
    const body = JSON.parse(fs.readFileSync(path.join(DIR, `${name}.json`), 'utf8')) as Json;
    const choice = body.choices[0];
    return {
      content: choice.message.content ?? '',
      calls: (choice.message.tool_calls ?? []).map((c: Json) => [c.function.name, c.function.arguments]),
      finishReason: choice.finish_reason,
      usage: body.usage,
    };
  }
  const chunks = fs
    .readFileSync(sse, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
    .map((l) => JSON.parse(l.slice('data: '.length)) as Json);
  const out: Said = { content: '', calls: [], finishReason: undefined, usage: undefined };
  for (const chunk of chunks) {
    if (chunk.usage) out.usage = chunk.usage;
    for (const choice of chunk.choices ?? []) {
      out.content += choice.delta?.content ?? '';
      for (const call of choice.delta?.tool_calls ?? []) {
        const slot = (out.calls[call.index] ??= ['', '']);
        if (call.function?.name) slot[0] = call.function.name;
        slot[1] += call.function?.arguments ?? '';
      }
      if (choice.finish_reason) out.finishReason = choice.finish_reason;
    }
  }
  return out;
}

/** The activity's request for a recorded request body: its messages, tools and streaming. */
function requestFor(name: string): ModelRequest {
  const body = JSON.parse(fs.readFileSync(path.join(DIR, `${name}.request.json`), 'utf8')) as Json;
  return {
    model: body.model ?? 'SmolLM2-135M-Instruct.Q4_1',
    stream: body.stream === true,
    turnId: `llama-${name}`,
    call: 1,
    messages: body.messages,
    tools: (body.tools ?? []).map((t: Json) => ({
      name: t.function.name,
      description: t.function.description ?? '',
      parameters: t.function.parameters ?? { type: 'object' },
    })),
  } as ModelRequest;
}

let model: RecordedModel;
let callModel: (req: ModelRequest) => Promise<ModelResponse>;
beforeAll(async () => {
  model = await startRecordedModel();
  const client = new OpenAI({ baseURL: model.url, apiKey: 'sk-llama-recordings', maxRetries: 0 });
  callModel = createModelActivities({ client }).callModel;
});
afterAll(() => model.close());

test('every recording is here: 10 cases, each a request and its response', () => {
  expect(CASES).toHaveLength(10);
  for (const name of CASES) {
    const bodies = [`${name}.sse`, `${name}.json`].filter((f) => fs.existsSync(path.join(DIR, f)));
    expect(bodies).toHaveLength(1);
  }
});

test.each(CASES)('%s: the activity answers what the server sent', async (name) => {
  const expected = said(name);
  const request = requestFor(name);
  const body = fs.readFileSync(path.join(DIR, `${name}.${request.stream ? 'sse' : 'json'}`), 'utf8');
  model.serve(body);
  const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  const r = (await env.run(callModel, request)) as ModelResponse;
  expect(model.requests.at(-1)!.stream === true).toBe(request.stream);
  expect(r.message.content ?? '').toBe(expected.content);
  expect((r.message.tool_calls ?? []).map((c) => [c.function.name, c.function.arguments])).toEqual(expected.calls);
  expect(r.finishReason).toBe(expected.finishReason);
  if (expected.usage) {
    expect(r.usage).toEqual({
      inputTokens: expected.usage.prompt_tokens,
      outputTokens: expected.usage.completion_tokens,
      totalTokens: expected.usage.total_tokens,
    });
    expect(r.usageSource).toBe(request.stream ? 'stream' : 'response');
  } else {
    expect(r.usageSource).toBe('estimated');
  }
});
