import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam } from 'openai/resources/chat/completions';

import {
  demoScript,
  scriptByInstructions,
  startScriptedModel,
  systemPrompt,
  type ScriptedModel,
  type ScriptedModelOptions,
} from '../../src/testing/scripted-model';

const servers: ScriptedModel[] = [];

async function start(opts?: ScriptedModelOptions): Promise<{ model: ScriptedModel; client: OpenAI }> {
  const model = await startScriptedModel(opts);
  servers.push(model);
  const client = new OpenAI({ baseURL: model.url, apiKey: 'test', maxRetries: 0, logLevel: 'off' });
  return { model, client };
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** Resolve once `done()` holds, checking after each turn of the event loop's timers. */
async function untilTrue(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 1));
}

const userMsg = (content: string): ChatCompletionMessageParam[] => [{ role: 'user', content }];

/** Reassemble a streamed completion the way an agent loop would. */
async function collect(stream: AsyncIterable<ChatCompletionChunk>): Promise<{
  chunks: ChatCompletionChunk[];
  content: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: string | null;
}> {
  const chunks: ChatCompletionChunk[] = [];
  let content = '';
  let finishReason: string | null = null;
  const toolCalls: { id: string; name: string; arguments: string }[] = [];
  for await (const chunk of stream) {
    chunks.push(chunk);
    const choice = chunk.choices[0];
    if (!choice) continue;
    content += choice.delta.content ?? '';
    for (const tc of choice.delta.tool_calls ?? []) {
      const slot = (toolCalls[tc.index] ??= { id: '', name: '', arguments: '' });
      if (tc.id) slot.id = tc.id;
      if (tc.function?.name) slot.name = tc.function.name;
      slot.arguments += tc.function?.arguments ?? '';
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  return { chunks, content, toolCalls, finishReason };
}

describe('scripted model (real HTTP + real openai client)', () => {
  it('answers non-streaming requests with content, tool calls and usage', async () => {
    const { model, client } = await start({
      script: [
        {
          content: 'checking',
          toolCalls: [
            { name: 'read_file', arguments: { path: 'a.txt' } },
            { id: 'explicit', name: 'noop', arguments: '{"x":1}' },
          ],
          usage: { prompt_tokens: 7, completion_tokens: 3 },
        },
        { toolCalls: [{ name: 'read_file', arguments: { path: 'b.txt' } }] },
        { content: 'all done' },
      ],
    });
    expect(model.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(model.remaining()).toBe(3);

    const first = await client.chat.completions.create({ model: 'gpt-test', messages: userMsg('hi') });
    expect(first.object).toBe('chat.completion');
    expect(first.model).toBe('gpt-test');
    const choice = first.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.role).toBe('assistant');
    expect(choice?.message.content).toBe('checking');
    const calls = choice?.message.tool_calls ?? [];
    expect(calls).toHaveLength(2);
    const [c0, c1] = calls;
    expect(c0?.type).toBe('function');
    expect(c0?.id).toMatch(/^call_\d+$/);
    expect(c0?.type === 'function' && c0.function).toEqual({ name: 'read_file', arguments: '{"path":"a.txt"}' });
    expect(c1?.id).toBe('explicit');
    expect(c1?.type === 'function' && c1.function.arguments).toBe('{"x":1}');
    expect(first.usage).toEqual({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });

    const second = await client.chat.completions.create({ model: 'gpt-test', messages: userMsg('again') });
    expect(second.choices[0]?.message.content).toBeNull();
    const secondId = second.choices[0]?.message.tool_calls?.[0]?.id;
    expect(secondId).toMatch(/^call_\d+$/);
    expect(secondId).not.toBe(c0?.id);
    expect(second.usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });

    const third = await client.chat.completions.create({ model: 'gpt-test', messages: userMsg('end') });
    expect(third.choices[0]?.finish_reason).toBe('stop');
    expect(third.choices[0]?.message.content).toBe('all done');
    expect(third.choices[0]?.message.tool_calls).toBeUndefined();

    expect(model.remaining()).toBe(0);
    expect(model.requests).toHaveLength(3);
    expect(model.requests[0]?.stream).toBe(false);
    expect(model.requests[0]?.body.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(model.requests[0]?.headers.authorization).toBe('Bearer test');
    expect(typeof model.requests[0]?.at).toBe('number');
  });

  it('streams content and tool-call argument deltas that reassemble to the script', async () => {
    const content = 'Hello there, this is a streamed answer with ünïcödé 🙂 in it.';
    const args = { path: 'some/dir/notes.txt', reason: 'the user asked for it' };
    const { model, client } = await start({
      chunkSize: 5,
      script: [
        {
          content,
          toolCalls: [
            { id: 't1', name: 'read_file', arguments: args },
            { name: 'delete_file', arguments: '{"path":"x.md"}' },
          ],
          usage: { prompt_tokens: 11, completion_tokens: 22, total_tokens: 40 },
        },
        { content: 'no usage please' },
      ],
    });

    const stream = await client.chat.completions.create({
      model: 'gpt-stream',
      messages: userMsg('go'),
      stream: true,
      stream_options: { include_usage: true },
    });
    const got = await collect(stream);
    expect(got.content).toBe(content);
    expect(got.finishReason).toBe('tool_calls');
    expect(got.toolCalls).toHaveLength(2);
    expect(got.toolCalls[0]).toEqual({ id: 't1', name: 'read_file', arguments: JSON.stringify(args) });
    expect(got.toolCalls[1]?.name).toBe('delete_file');
    expect(got.toolCalls[1]?.id).toMatch(/^call_\d+$/);
    expect(got.toolCalls[1]?.arguments).toBe('{"path":"x.md"}');

    // Progressive deltas: content split into several pieces of at most chunkSize characters.
    const contentDeltas = got.chunks.map((c) => c.choices[0]?.delta.content).filter((d): d is string => !!d);
    expect(contentDeltas.length).toBeGreaterThan(5);
    for (const d of contentDeltas) expect(Array.from(d).length).toBeLessThanOrEqual(5);
    expect(got.chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    expect(got.chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'gpt-stream')).toBe(true);

    // Usage only in the final choices:[] chunk.
    const last = got.chunks[got.chunks.length - 1];
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toEqual({ prompt_tokens: 11, completion_tokens: 22, total_tokens: 40 });
    expect(got.chunks.slice(0, -1).every((c) => c.usage == null)).toBe(true);

    // Without include_usage: no usage chunk at all.
    const plain = await collect(
      await client.chat.completions.create({ model: 'gpt-stream', messages: userMsg('go'), stream: true }),
    );
    expect(plain.content).toBe('no usage please');
    expect(plain.finishReason).toBe('stop');
    expect(plain.chunks.every((c) => c.choices.length === 1 && c.usage == null)).toBe(true);

    expect(model.requests.map((r) => r.stream)).toEqual([true, true]);
  });

  it('repeats cumulative usage on every chunk with usageInEveryChunk', async () => {
    const { client } = await start({ usageInEveryChunk: true, script: [{ content: 'abcdefghijklmnop' }] });
    const got = await collect(
      await client.chat.completions.create({
        model: 'm',
        messages: userMsg('go'),
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    expect(got.content).toBe('abcdefghijklmnop');
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    expect(got.chunks.length).toBeGreaterThan(3);
    for (const c of got.chunks) expect(c.usage).toEqual(usage);
    expect(got.chunks[got.chunks.length - 1]?.choices).toEqual([]);
  });

  it('surfaces error steps as OpenAI.APIError with status and headers', async () => {
    const { model, client } = await start({
      script: [
        { error: { status: 429, message: 'slow down', headers: { 'retry-after': '0' } } },
        { error: { status: 400, type: 'invalid_request_error' } },
      ],
    });
    const err = await client.chat.completions.create({ model: 'm', messages: userMsg('x') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    const apiErr = err as InstanceType<typeof OpenAI.APIError>;
    expect(apiErr.status).toBe(429);
    expect(apiErr.headers?.get('retry-after')).toBe('0');
    expect(apiErr.message).toContain('slow down');
    expect(apiErr.type).toBe('scripted_error');

    const err2 = await client.chat.completions
      .create({ model: 'm', messages: userMsg('x'), stream: true })
      .catch((e: unknown) => e);
    expect(err2).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err2 as InstanceType<typeof OpenAI.APIError>).type).toBe('invalid_request_error');
    expect(model.requests).toHaveLength(2);
  });

  it('makes the client throw on a garbage body', async () => {
    const { client } = await start({
      script: [{ garbage: '<html>not json' }, { garbage: 'data: {not json\n\n' }],
    });
    await expect(client.chat.completions.create({ model: 'm', messages: userMsg('x') })).rejects.toThrow();
    const stream = await client.chat.completions.create({ model: 'm', messages: userMsg('x'), stream: true });
    await expect(collect(stream)).rejects.toThrow();
  });

  it('answers 500 with a clear message once the script is exhausted', async () => {
    const { model, client } = await start({ script: [{ content: 'one' }] });
    await client.chat.completions.create({ model: 'm', messages: userMsg('x') });
    const err = await client.chat.completions.create({ model: 'm', messages: userMsg('x') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect((err as Error).message).toContain('scripted model: script exhausted after 1 requests');
    expect(model.requests).toHaveLength(2);

    model.push({ content: 'two' });
    expect(model.remaining()).toBe(1);
    const ok = await client.chat.completions.create({ model: 'm', messages: userMsg('x') });
    expect(ok.choices[0]?.message.content).toBe('two');

    model.setScript(({ index }) => ({ content: `fn ${index}` }));
    expect(model.remaining()).toBe(0);
    expect(() => model.push({ content: 'nope' })).toThrow(/array script/);
    const fn = await client.chat.completions.create({ model: 'm', messages: userMsg('x') });
    expect(fn.choices[0]?.message.content).toBe('fn 3');
  });

  it('serves /v1/models, 404s unknown paths and 400s invalid JSON', async () => {
    const { model, client } = await start();
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['scripted']);

    const notFound = await fetch(`${model.url}/nope`);
    expect(notFound.status).toBe(404);
    expect(((await notFound.json()) as { error: { message: string } }).error.message).toContain('/v1/nope');

    const bad = await fetch(`${model.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{oops',
    });
    expect(bad.status).toBe(400);
    expect(model.requests).toHaveLength(0);
  });

  it('delays responses and survives client aborts', async () => {
    const { model, client } = await start({
      script: [{ content: 'slow', delayMs: 150 }, { content: 'never seen', delayMs: 5000 }, { content: 'after' }],
    });
    const t0 = Date.now();
    const slow = await client.chat.completions.create({ model: 'm', messages: userMsg('x') });
    expect(slow.choices[0]?.message.content).toBe('slow');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);

    const ac = new AbortController();
    const pending = client.chat.completions.create({ model: 'm', messages: userMsg('x') }, { signal: ac.signal });
    // Abort only once the server holds the request (it has taken 'never seen'), however slow the machine is;
    // an abort before that never reaches the server and leaves 'never seen' for the next request.
    await untilTrue(() => model.remaining() === 1);
    ac.abort();
    await expect(pending).rejects.toBeInstanceOf(OpenAI.APIUserAbortError);

    const after = await client.chat.completions.create({ model: 'm', messages: userMsg('x') });
    expect(after.choices[0]?.message.content).toBe('after');
    expect(model.requests).toHaveLength(3);
  });

  it('lets a client stop reading a stream midway', async () => {
    const { client } = await start({ chunkSize: 1, script: [{ content: 'x'.repeat(500) }, { content: 'next' }] });
    const stream = await client.chat.completions.create({ model: 'm', messages: userMsg('x'), stream: true });
    let seen = 0;
    for await (const chunk of stream) {
      void chunk;
      if (++seen === 5) break;
    }
    expect(seen).toBe(5);
    const next = await client.chat.completions.create({ model: 'm', messages: userMsg('x') });
    expect(next.choices[0]?.message.content).toBe('next');
  });

  it('types with chunkDelayMs, records content chunks, breaks a stream and reports a throwing script', async () => {
    const { model, client } = await start({
      chunkSize: 2,
      script: [
        { content: 'abcdef', chunkDelayMs: 30 },
        { content: 'ghijkl', breakAfterChunks: 1 },
      ],
    });
    const t0 = Date.now();
    const typed = await collect(
      await client.chat.completions.create({ model: 'm', messages: userMsg('x'), stream: true }),
    );
    expect(typed.content).toBe('abcdef');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(80);
    expect(model.contentChunks.map((c) => c.text)).toEqual(['ab', 'cd', 'ef']);

    const broken = client.chat.completions
      .create({ model: 'm', messages: userMsg('x'), stream: true })
      .then((s) => collect(s));
    await expect(broken).rejects.toThrow();
    expect(model.contentChunks.map((c) => c.text)).toEqual(['ab', 'cd', 'ef', 'gh']);

    model.setScript(() => {
      throw new Error('boom');
    });
    const err = await client.chat.completions.create({ model: 'm', messages: userMsg('x') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect((err as Error).message).toContain('scripted model: script function threw: boom');
  });

  it('systemPrompt reads the first system message, as text or content parts', () => {
    expect(
      systemPrompt({
        messages: [
          { role: 'user', content: 'u' },
          { role: 'system', content: 'sys' },
        ],
      }),
    ).toBe('sys');
    expect(systemPrompt({ messages: [null, { role: 'system', content: [{ type: 'text', text: 'a' }, 'b', 3] }] })).toBe(
      'ab',
    );
    expect(systemPrompt({ messages: [{ role: 'user', content: 'u' }] })).toBeUndefined();
    expect(systemPrompt({ messages: 'nope' })).toBeUndefined();
    expect(systemPrompt(null)).toBeUndefined();
  });

  it('demoScript drives a read -> delete -> final conversation', async () => {
    const { model, client } = await start({ script: demoScript() });
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = ['read_file', 'delete_file'].map((name) => ({
      type: 'function',
      function: { name, parameters: { type: 'object', properties: { path: { type: 'string' } } } },
    }));
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You are the assistant.' },
      { role: 'user', content: 'Please read report.md and then delete it.' },
    ];

    // Step 1: read.
    const r1 = await client.chat.completions.create({ model: 'demo', messages, tools });
    const m1 = r1.choices[0]?.message;
    expect(m1?.content).toBe('Let me read report.md first.');
    const read = m1?.tool_calls?.[0];
    expect(read?.type === 'function' && read.function).toEqual({
      name: 'read_file',
      arguments: JSON.stringify({ path: 'report.md' }),
    });
    expect(r1.usage).toEqual({ prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 });
    if (!m1 || !read) throw new Error('expected a read_file call');
    const fileContents = 'Q3 numbers: '.padEnd(300, '#');
    messages.push(m1, { role: 'tool', tool_call_id: read.id, content: fileContents });

    // Step 2: delete (streamed, to exercise the demo over SSE too).
    const s2 = await collect(await client.chat.completions.create({ model: 'demo', messages, tools, stream: true }));
    expect(s2.content).toBe("I've read it; now I'll delete report.md as you asked.");
    expect(s2.toolCalls).toHaveLength(1);
    const del = s2.toolCalls[0];
    expect(del?.name).toBe('delete_file');
    expect(del?.arguments).toBe(JSON.stringify({ path: 'report.md' }));
    expect(del?.id).toBeTruthy();
    expect(del?.id).not.toBe(read.id);
    if (!del) throw new Error('expected a delete_file call');
    messages.push(
      {
        role: 'assistant',
        content: s2.content,
        tool_calls: [{ id: del.id, type: 'function', function: { name: del.name, arguments: del.arguments } }],
      },
      { role: 'tool', tool_call_id: del.id, content: 'Deleted report.md' },
    );

    // Step 3: final summary.
    const r3 = await client.chat.completions.create({ model: 'demo', messages, tools });
    expect(r3.choices[0]?.finish_reason).toBe('stop');
    expect(r3.choices[0]?.message.tool_calls).toBeUndefined();
    expect(r3.choices[0]?.message.content).toBe(
      `Done: report.md was deleted. Its contents were: ${fileContents.slice(0, 200)}`,
    );

    // A refused deletion is reported instead.
    const refused = [
      ...messages.slice(0, -1),
      { role: 'tool' as const, tool_call_id: del.id, content: 'Denied by human' },
    ];
    const r4 = await client.chat.completions.create({ model: 'demo', messages: refused, tools });
    expect(r4.choices[0]?.message.content).toBe('I did not delete report.md: Denied by human');

    // Default file name when none is mentioned.
    const r5 = await client.chat.completions.create({ model: 'demo', messages: userMsg('clean up please') });
    expect(r5.choices[0]?.message.content).toBe('Let me read notes.txt first.');

    // A failed read is said as such (the delete is still offered, for its gate to decide).
    const unread = [
      ...messages.slice(0, 3),
      { role: 'tool' as const, tool_call_id: read.id, content: 'Error: read_file failed: report.md does not exist' },
    ];
    const r6 = await client.chat.completions.create({ model: 'demo', messages: unread, tools });
    expect(r6.choices[0]?.message.content).toBe(
      "I could not read report.md (Error: read_file failed: report.md does not exist); I'll still try to delete it as you asked.",
    );
    expect(r6.choices[0]?.message.tool_calls?.[0]).toMatchObject({ function: { name: 'delete_file' } });
    expect(model.requests).toHaveLength(6);
  });

  it('scriptByInstructions routes each request by its system prompt, one cursor per route', async () => {
    const { client } = await start({
      script: scriptByInstructions({
        'You plan.': [{ content: 'plan 1' }, { content: 'plan 2' }],
        'You research.': ({ index }) => ({ content: `research ${index}` }),
      }),
    });
    const ask = async (system: string) => {
      const r = await client.chat.completions.create({
        model: 'x',
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: 'go' },
        ],
      });
      return r.choices[0]?.message.content;
    };
    expect(await ask('You plan.')).toBe('plan 1');
    expect(await ask('You research.')).toBe('research 0');
    expect(await ask('You plan.')).toBe('plan 2');
    expect(await ask('You research.')).toBe('research 1');
    await expect(ask('You plan.')).rejects.toMatchObject({
      status: 500,
      message: expect.stringMatching(/exhausted after 2/),
    });
    await expect(ask('Someone else.')).rejects.toMatchObject({
      status: 500,
      message: expect.stringContaining('no script for instructions "Someone else."'),
    });
  });
});
