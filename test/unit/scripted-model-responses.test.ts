/**
 * The scripted model's Responses API route (`POST /v1/responses`), through real HTTP: the real `openai`
 * client, raw SSE where the event format itself is the point, and Tiller's own readers (`respond()` and
 * Chat Completions' `streamedChat`) to show that one script gives the same answer on either API.
 */
import OpenAI from 'openai';
import { streamedChat, unaryChat } from '../../src/activities/model/chat';
import type { Prompt } from '../../src/activities/model/prompt';
import { respond } from '../../src/activities/model/responses';
import {
  demoScript,
  scriptByInstructions,
  startScriptedModel,
  type ScriptedModel,
  type ScriptedModelOptions,
} from '../../src/testing/scripted-model';

const servers: ScriptedModel[] = [];

async function start(opts?: ScriptedModelOptions): Promise<{ model: ScriptedModel; client: OpenAI }> {
  const model = await startScriptedModel(opts);
  servers.push(model);
  return { model, client: new OpenAI({ baseURL: model.url, apiKey: 'test', maxRetries: 0, logLevel: 'off' }) };
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const prompt = (over: Partial<Prompt> = {}): Prompt => ({
  model: 'scripted',
  stream: true,
  turnId: 't',
  call: 1,
  messages: [
    { role: 'system', content: 'You help.' },
    { role: 'user', content: 'Read notes.txt' },
  ],
  tools: [{ name: 'read_file', description: 'read a file', parameters: { type: 'object' } }],
  ...over,
});
const ask = (client: OpenAI, p: Prompt, store = false) =>
  respond(client, p, { signal: new AbortController().signal, beat: () => undefined, store });

/** The raw SSE of a streamed Responses request: each event's `event:` name and parsed `data:`. */
async function rawEvents(model: ScriptedModel, body: Record<string, unknown>) {
  const res = await fetch(`${model.url}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'scripted', stream: true, ...body }),
  });
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const text = await res.text();
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const [event, data] = block.split('\n');
      return { event: event!.replace(/^event: /, ''), data: JSON.parse(data!.replace(/^data: /, '')) };
    });
}

const readStep = {
  content: 'Let me read it.',
  toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'notes.txt' } }],
  usage: { prompt_tokens: 30, completion_tokens: 12 },
};

describe('POST /v1/responses', () => {
  test('a whole response: a message and a function call item, usage in the Responses names, recorded as api responses', async () => {
    const { model, client } = await start({ script: [readStep] });
    const r = await client.responses.create({ model: 'scripted', input: 'Read notes.txt' });
    expect(r).toMatchObject({
      object: 'response',
      status: 'completed',
      output: [
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Let me read it.' }] },
        { type: 'function_call', call_id: 'c1', name: 'read_file', arguments: '{"path":"notes.txt"}' },
      ],
      usage: { input_tokens: 30, output_tokens: 12, total_tokens: 42 },
    });
    expect(r.id).toMatch(/^resp_/);
    expect(r.output_text).toBe('Let me read it.');
    expect(model.requests).toEqual([
      expect.objectContaining({
        api: 'responses',
        stream: false,
        body: { model: 'scripted', input: 'Read notes.txt' },
      }),
    ]);
  });

  test('a stream: the documented events in order, numbered from 0, each with its event: name', async () => {
    const { model } = await start({ script: [readStep], chunkSize: 6 });
    const events = await rawEvents(model, { input: 'Read notes.txt' });
    for (const [i, e] of events.entries()) {
      expect(e.data.type).toBe(e.event);
      expect(e.data.sequence_number).toBe(i);
    }
    expect(events.map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events[0]!.data.response).toMatchObject({ status: 'in_progress', output: [], usage: null });
    expect(events.at(-1)!.data.response).toMatchObject({ status: 'completed', usage: { total_tokens: 42 } });
    expect(model.contentChunks.map((c) => c.text)).toEqual(['Let me', ' read ', 'it.']);
  });

  test('one script, the same answer on either API, streamed or whole', async () => {
    const { client } = await start({ script: [readStep, readStep, readStep, readStep] });
    const viaResponses = await ask(client, prompt());
    const wholeResponses = await ask(client, prompt({ stream: false }));
    const viaChat = await streamedChat(client, prompt(), new AbortController().signal, () => undefined);
    const wholeChat = await unaryChat(client, prompt({ stream: false }), new AbortController().signal);
    const said = (r: typeof viaChat) => ({
      content: r.content,
      calls: r.calls,
      finishReason: r.finishReason,
      usage: r.usage,
    });
    const expected = {
      content: 'Let me read it.',
      calls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"notes.txt"}' }],
      finishReason: 'tool_calls',
      usage: { inputTokens: 30, outputTokens: 12, totalTokens: 42 },
    };
    for (const r of [viaResponses, wholeResponses, viaChat, wholeChat]) expect(said(r)).toEqual(expected);
  });

  test('the request as Tiller sends it: instructions, input items, tools, store and include', async () => {
    const { model, client } = await start({ script: [{ content: 'ok' }] });
    await ask(client, prompt());
    expect(model.requests[0]).toMatchObject({
      api: 'responses',
      stream: true,
      body: {
        model: 'scripted',
        instructions: 'You help.',
        input: [{ role: 'user', content: 'Read notes.txt' }],
        tools: [{ type: 'function', name: 'read_file', strict: false }],
        store: false,
        include: ['reasoning.encrypted_content'],
      },
    });
  });

  test('previous_response_id: the kept conversation continues, and scripts read it whole as Chat Completions messages', async () => {
    const seen: unknown[] = [];
    const { model, client } = await start({
      script: ({ body, index }) => {
        seen.push(body.messages);
        return index === 0 ? readStep : { content: 'It says: buy milk.' };
      },
    });
    const first = await ask(client, prompt(), true);
    expect(first.responses?.id).toMatch(/^resp_/);
    const messages = [
      ...prompt().messages,
      {
        role: 'assistant' as const,
        content: 'Let me read it.',
        tool_calls: [
          { id: 'c1', type: 'function' as const, function: { name: 'read_file', arguments: '{"path":"notes.txt"}' } },
        ],
        responses: first.responses!,
      },
      { role: 'tool' as const, tool_call_id: 'c1', content: 'buy milk' },
    ];
    const second = await ask(client, prompt({ messages }), true);
    expect(second.content).toBe('It says: buy milk.');
    expect(model.requests[1]!.body).toMatchObject({
      previous_response_id: first.responses!.id,
      input: [{ type: 'function_call_output', call_id: 'c1', output: 'buy milk' }],
    });
    expect(seen[1]).toEqual([
      { role: 'system', content: 'You help.' },
      { role: 'user', content: 'Read notes.txt' },
      {
        role: 'assistant',
        content: 'Let me read it.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"notes.txt"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'buy milk' },
    ]);
  });

  test('an unknown, unkept or forgotten previous response is a 404 previous_response_not_found, and takes no script step', async () => {
    const { model, client } = await start({ script: [{ content: 'a' }, { content: 'b' }, { content: 'c' }] });
    const notFound = { status: 404, code: 'previous_response_not_found', param: 'previous_response_id' };
    await expect(
      client.responses.create({ model: 'scripted', input: 'x', previous_response_id: 'resp_nope' }),
    ).rejects.toMatchObject(notFound);
    expect(model.remaining()).toBe(3);

    const unkept = await client.responses.create({ model: 'scripted', input: 'x', store: false });
    await expect(
      client.responses.create({ model: 'scripted', input: 'y', previous_response_id: unkept.id }),
    ).rejects.toMatchObject(notFound);

    const kept = await client.responses.create({ model: 'scripted', input: 'x' });
    model.forgetResponses();
    await expect(
      client.responses.create({ model: 'scripted', input: 'y', previous_response_id: kept.id }),
    ).rejects.toMatchObject(notFound);
    expect(model.remaining()).toBe(1);
  });

  test('a function_call_output no function_call in the conversation made is a 400, as OpenAI answers', async () => {
    const { client } = await start({ script: [{ content: 'a' }] });
    await expect(
      client.responses.create({
        model: 'scripted',
        input: [{ type: 'function_call_output', call_id: 'c9', output: 'x' }],
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/No tool call found .* c9/) });
  });

  test('error, garbage and reset steps, as on Chat Completions', async () => {
    const { client } = await start({
      script: [
        { error: { status: 429, message: 'slow down' } },
        { garbage: 'not json' },
        { garbage: 'data: {oops\n\n' },
        { reset: true },
      ],
    });
    await expect(client.responses.create({ model: 'scripted', input: 'x' })).rejects.toMatchObject({ status: 429 });
    await expect(client.responses.create({ model: 'scripted', input: 'x' })).rejects.toThrow();
    await expect(ask(client, prompt())).rejects.toMatchObject({ message: expect.stringMatching(/not JSON/) });
    await expect(client.responses.create({ model: 'scripted', input: 'x' })).rejects.toBeInstanceOf(
      OpenAI.APIConnectionError,
    );
  });

  test('breakAfterChunks cuts the stream after that many text deltas: never an answer', async () => {
    const { model, client } = await start({ script: [{ content: 'a long answer to cut', breakAfterChunks: 2 }] });
    await expect(ask(client, prompt())).rejects.toThrow();
    expect(model.contentChunks).toHaveLength(2);
  });

  test('reasoning: a summary, and encrypted_content when the request includes it; kept by respond() for the next call', async () => {
    const step = { reasoning: 'Think first.', content: 'Done.' };
    const { model, client } = await start({ script: [step, step], chunkSize: 100 });
    const r = await ask(client, prompt());
    expect(r.reasoning).toBe('Think first.');
    expect(r.responses?.reasoning).toEqual([
      {
        id: expect.stringMatching(/^rs_/),
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: 'Think first.' }],
        encrypted_content: expect.any(String),
      },
    ]);
    const events = await rawEvents(model, { input: 'x' });
    expect(events.map((e) => e.event).slice(2, 8)).toEqual([
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
    ]);
    expect(events[7]!.data.item).not.toHaveProperty('encrypted_content');
  });

  test('incomplete: status incomplete with its reason, response.incomplete in a stream', async () => {
    const { model, client } = await start({
      script: [
        { content: 'cut', incomplete: 'max_output_tokens' },
        { content: 'cut', incomplete: 'content_filter' },
        { content: 'cut', incomplete: 'max_output_tokens' },
      ],
    });
    expect((await ask(client, prompt())).finishReason).toBe('length');
    expect((await ask(client, prompt({ stream: false }))).finishReason).toBe('content_filter');
    const events = await rawEvents(model, { input: 'x' });
    expect(events.at(-1)).toMatchObject({
      event: 'response.incomplete',
      data: { response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } },
    });
  });

  test('echo answers with the settings sent (all but the conversation, the tools and stream)', async () => {
    const { client } = await start({ script: [{ echo: true }] });
    const r = await ask(
      client,
      prompt({ settings: { temperature: 0.3, maxTokens: 50, toolChoice: 'none', seed: 4 }, stream: false }),
    );
    expect(JSON.parse(r.content as string)).toEqual({
      temperature: 0.3,
      max_output_tokens: 50,
      tool_choice: 'none',
      model: 'scripted',
      store: false,
      include: ['reasoning.encrypted_content'],
    });
  });

  test('scriptByInstructions and the demo script answer Responses requests as they answer Chat Completions', async () => {
    const { client, model } = await start({
      script: scriptByInstructions({ 'You help.': [{ content: 'routed' }] }),
    });
    expect((await ask(client, prompt())).content).toBe('routed');

    model.setScript(demoScript());
    const first = await ask(client, prompt());
    expect(first.content).toBe('Let me read notes.txt first.');
    const call = first.calls[0]!;
    const messages = [
      ...prompt().messages,
      {
        role: 'assistant' as const,
        content: first.content as string,
        tool_calls: [
          { id: call.id as string, type: 'function' as const, function: { name: 'read_file', arguments: '{}' } },
        ],
      },
      { role: 'tool' as const, tool_call_id: call.id as string, content: 'buy milk' },
    ];
    const second = await ask(client, prompt({ messages }));
    expect(second.calls).toMatchObject([{ name: 'delete_file' }]);
  });
});
