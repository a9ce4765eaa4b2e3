/**
 * A scripted, real-HTTP stand-in for an OpenAI-compatible Chat Completions endpoint.
 *
 * The server listens on loopback and answers `POST {base}/chat/completions` (streaming and
 * non-streaming) from a script: either an array of {@link ScriptStep}s consumed one per request, or a
 * {@link ScriptFn} that computes each response from the request body. The real `openai` client can be
 * pointed at it with `new OpenAI({ baseURL: model.url, apiKey: 'test' })`.
 *
 * It is used by tests (deterministic model behaviour, error injection, timing) and by the offline
 * demo (see {@link demoScript}).
 *
 * @module
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Token usage reported for a scripted response. `total_tokens` defaults to the sum of the other two. */
export interface ScriptUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
}

/** A tool (function) call the scripted assistant makes. */
export interface ScriptToolCall {
  /** Tool call id. Defaults to `call_<n>`, where `n` is a counter unique per server. */
  id?: string;
  /** Function name. */
  name: string;
  /** Function arguments: a raw string is sent verbatim, an object is `JSON.stringify`-ed. */
  arguments: string | Record<string, unknown>;
}

/**
 * One scripted answer to one chat-completions request.
 *
 * - `{ content?, toolCalls?, usage?, delayMs? }`: a normal assistant response (`delayMs` waits before
 *   responding; `usage` overrides the server's default usage).
 * - `{ error: { status, message?, type?, headers? } }`: an HTTP error with an OpenAI-style JSON body
 *   `{ error: { message, type, code: null } }` and the given extra response headers.
 * - `{ garbage, status? }`: a response (status 200 unless given) whose body is exactly this raw text.
 *   Non-streaming requests get it labelled `application/json`, so the client's JSON parse fails.
 *   Streaming requests get it labelled `text/event-stream`; note that text with no `data:` line is
 *   simply an empty event stream to an SSE parser, so use e.g. `'data: {oops\n\n'` to make a
 *   streaming client fail to parse.
 */
export type ScriptStep =
  | NormalStep
  | { error: { status: number; message?: string; type?: string; headers?: Record<string, string> } }
  | { garbage: string; status?: number };

/** A chat-completions request the server received. */
export interface RecordedRequest {
  /** The parsed JSON request body. */
  body: any;
  /** Whether the request asked for a streamed response (`body.stream === true`). */
  stream: boolean;
  /** The request headers, as Node parsed them (lower-cased names). */
  headers: Record<string, string | string[] | undefined>;
  /** `Date.now()` when the request body had been received. */
  at: number;
}

/**
 * A script computed per request. `index` is the 0-based number of the chat-completions request on
 * this server (counting every request with a valid JSON body, over the server's lifetime).
 */
export type ScriptFn = (req: { body: any; index: number }) => ScriptStep;

/** Options for {@link startScriptedModel}. */
export interface ScriptedModelOptions {
  /** Port to listen on; default 0 (an ephemeral port). */
  port?: number;
  /** Host to listen on; default `127.0.0.1`. */
  host?: string;
  /** The initial script; default an empty array (every request gets the "script exhausted" 500). */
  script?: ScriptStep[] | ScriptFn;
  /** Usage for steps without their own; default `{ prompt_tokens: 10, completion_tokens: 5 }`. */
  defaultUsage?: ScriptUsage;
  /** Characters per streamed content / tool-argument delta; default 8. */
  chunkSize?: number;
  /**
   * Repeat the (cumulative) usage on every streamed chunk, as some providers do; default false.
   * The final usage-only chunk is still sent when the request sets `stream_options.include_usage`.
   */
  usageInEveryChunk?: boolean;
}

/** A running scripted model server. */
export interface ScriptedModel {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:43210/v1`; pass it as the OpenAI `baseURL`. */
  url: string;
  /**
   * Every chat-completions request received, in order, including ones answered with scripted errors
   * or "script exhausted". (Requests with an invalid JSON body are answered 400 and not recorded.)
   */
  requests: RecordedRequest[];
  /** Every streamed content chunk, when it was written (for measuring how fast text reaches followers). */
  contentChunks: { at: number; text: string }[];
  /** Append steps to the current array script. Throws if the current script is a function. */
  push(...steps: ScriptStep[]): void;
  /** Replace the script. An array script starts again from its first step. */
  setScript(script: ScriptStep[] | ScriptFn): void;
  /** Steps left in an array script (0 for function scripts). */
  remaining(): number;
  /** Stop listening, abort in-flight responses and close every socket. */
  close(): Promise<void>;
}

/** A normal answer; see {@link ScriptStep}. */
export interface NormalStep {
  content?: string;
  toolCalls?: ScriptToolCall[];
  usage?: ScriptUsage;
  delayMs?: number;
  /** Streaming only: wait this long before each content chunk (a model that types). */
  chunkDelayMs?: number;
  /** Streaming only: drop the connection after this many content chunks (a stream that breaks). */
  breakAfterChunks?: number;
}

interface ResolvedToolCall {
  id: string;
  name: string;
  arguments: string;
}

interface FullUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

const DEFAULT_USAGE: ScriptUsage = { prompt_tokens: 10, completion_tokens: 5 };

function fullUsage(u: ScriptUsage): FullUsage {
  return {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.total_tokens ?? u.prompt_tokens + u.completion_tokens,
  };
}

/** Split text into pieces of at most `size` code points (never splitting a surrogate pair). */
function splitText(text: string, size: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

function errorBody(message: string, type: string): string {
  return JSON.stringify({ error: { message, type, code: null } });
}

function sendJson(res: http.ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
  });
  res.end(body);
}

/** Resolve after `ms`, or early (returning false) if `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Start a scripted model server.
 *
 * @example
 * ```ts
 * const model = await startScriptedModel({ script: [{ content: 'hi' }] });
 * const client = new OpenAI({ baseURL: model.url, apiKey: 'test', maxRetries: 0 });
 * await client.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'hello' }] });
 * await model.close();
 * ```
 */
export async function startScriptedModel(opts: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  const host = opts.host ?? '127.0.0.1';
  const chunkSize = Math.max(1, Math.floor(opts.chunkSize ?? 8));
  const defaultUsage = opts.defaultUsage ?? DEFAULT_USAGE;
  const usageInEveryChunk = opts.usageInEveryChunk ?? false;

  let script: ScriptStep[] | ScriptFn = opts.script ?? [];
  let cursor = 0; // next step of an array script
  let requestIndex = 0; // chat-completions requests seen (valid JSON)
  let toolCallCounter = 0;
  let completionCounter = 0;
  const requests: RecordedRequest[] = [];
  const contentChunks: { at: number; text: string }[] = [];
  const inFlight = new Set<AbortController>();

  function nextStep(body: unknown, index: number): ScriptStep {
    if (typeof script === 'function') {
      try {
        return script({ body, index });
      } catch (err) {
        const msg = err instanceof Error ? err.message : String(err);
        return { error: { status: 500, message: `scripted model: script function threw: ${msg}` } };
      }
    }
    const step = script[cursor];
    if (step === undefined) {
      return {
        error: {
          status: 500,
          message: `scripted model: script exhausted after ${cursor} requests`,
          type: 'server_error',
        },
      };
    }
    cursor++;
    return step;
  }

  function resolveToolCalls(calls: ScriptToolCall[] | undefined): ResolvedToolCall[] {
    return (calls ?? []).map((c) => ({
      id: c.id ?? `call_${++toolCallCounter}`,
      name: c.name,
      arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
    }));
  }

  async function answerNormal(
    res: http.ServerResponse,
    step: NormalStep,
    body: Record<string, unknown>,
    stream: boolean,
    signal: AbortSignal,
  ): Promise<void> {
    if (step.delayMs !== undefined && step.delayMs > 0) {
      const completed = await sleep(step.delayMs, signal);
      if (!completed) return;
    }
    if (signal.aborted) return;

    const id = `chatcmpl-scripted-${++completionCounter}`;
    const created = Math.floor(Date.now() / 1000);
    const model = typeof body.model === 'string' ? body.model : 'scripted';
    const toolCalls = resolveToolCalls(step.toolCalls);
    const usage = fullUsage(step.usage ?? defaultUsage);
    const finishReason = toolCalls.length > 0 ? 'tool_calls' : 'stop';

    if (!stream) {
      const message: Record<string, unknown> = {
        role: 'assistant',
        content: step.content ?? (toolCalls.length > 0 ? null : ''),
        refusal: null,
      };
      if (toolCalls.length > 0) {
        message.tool_calls = toolCalls.map((tc) => ({
          id: tc.id,
          type: 'function',
          function: { name: tc.name, arguments: tc.arguments },
        }));
      }
      const completion = {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
        usage,
      };
      sendJson(res, 200, JSON.stringify(completion));
      return;
    }

    const streamOptions = body.stream_options as { include_usage?: unknown } | undefined | null;
    const includeUsage = streamOptions?.include_usage === true;

    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.flushHeaders();

    const chunk = (delta: Record<string, unknown>, finish: string | null): Record<string, unknown> => {
      const c: Record<string, unknown> = {
        id,
        object: 'chat.completion.chunk',
        created,
        model,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      };
      if (usageInEveryChunk) c.usage = usage;
      return c;
    };
    const write = async (data: unknown): Promise<boolean> => {
      if (signal.aborted || res.destroyed) return false;
      res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
      await tick();
      return !signal.aborted && !res.destroyed;
    };

    if (!(await write(chunk({ role: 'assistant', content: '' }, null)))) return;
    const events: unknown[] = [];
    const pieces = splitText(step.content ?? '', chunkSize);
    for (const [i, piece] of pieces.entries()) {
      if (step.chunkDelayMs && !(await sleep(step.chunkDelayMs, signal))) return;
      if (step.breakAfterChunks !== undefined && i >= step.breakAfterChunks) {
        res.destroy();
        return;
      }
      if (!(await write(chunk({ content: piece }, null)))) return;
      contentChunks.push({ at: Date.now(), text: piece });
    }
    toolCalls.forEach((tc, index) => {
      events.push(
        chunk(
          { tool_calls: [{ index, id: tc.id, type: 'function', function: { name: tc.name, arguments: '' } }] },
          null,
        ),
      );
      for (const piece of splitText(tc.arguments, chunkSize)) {
        events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null));
      }
    });
    events.push(chunk({}, finishReason));
    if (includeUsage) events.push({ id, object: 'chat.completion.chunk', created, model, choices: [], usage });
    events.push('[DONE]');

    for (const ev of events) {
      if (!(await write(ev))) return;
    }
    res.end();
  }

  async function handleCompletion(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      sendJson(res, 400, errorBody('scripted model: request body is not valid JSON', 'invalid_request_error'));
      return;
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      sendJson(res, 400, errorBody('scripted model: request body must be a JSON object', 'invalid_request_error'));
      return;
    }
    const obj = body as Record<string, unknown>;
    const stream = obj.stream === true;
    requests.push({ body, stream, headers: { ...req.headers }, at: Date.now() });
    const index = requestIndex++;
    const step = nextStep(body, index);

    if ('error' in step) {
      const e = step.error;
      sendJson(
        res,
        e.status,
        errorBody(e.message ?? `scripted error ${e.status}`, e.type ?? 'scripted_error'),
        e.headers ?? {},
      );
      return;
    }
    if ('garbage' in step) {
      if (res.destroyed) return;
      res.writeHead(step.status ?? 200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
      res.end(step.garbage);
      return;
    }

    const ac = new AbortController();
    inFlight.add(ac);
    const onClose = (): void => {
      if (!res.writableFinished) ac.abort();
    };
    res.on('close', onClose);
    try {
      await answerNormal(res, step, obj, stream, ac.signal);
    } finally {
      res.off('close', onClose);
      inFlight.delete(ac);
    }
  }

  function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const method = req.method ?? 'GET';

    if (method === 'GET' && (path === '/v1/models' || path === '/v1/models/')) {
      req.resume();
      sendJson(
        res,
        200,
        JSON.stringify({
          object: 'list',
          data: [{ id: 'scripted', object: 'model', created: 0, owned_by: 'scripted-model' }],
        }),
      );
      return;
    }

    if (method === 'POST' && path === '/v1/chat/completions') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        handleCompletion(req, res, Buffer.concat(chunks).toString('utf8')).catch(() => {
          // Only reachable if writing to a dead socket throws; nothing useful to report.
          if (!res.headersSent) sendJson(res, 500, errorBody('scripted model: internal error', 'server_error'));
          else res.destroy();
        });
      });
      return;
    }

    req.resume();
    sendJson(res, 404, errorBody(`scripted model: no route for ${method} ${path}`, 'not_found_error'));
  }

  const server = http.createServer({ noDelay: true }, handle);
  server.on('clientError', (_err, socket) => {
    socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    server.once('error', onError);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', onError);
      resolve();
    });
  });

  const addr = server.address() as AddressInfo;
  const urlHost = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const url = `http://${urlHost.includes(':') ? `[${urlHost}]` : urlHost}:${addr.port}/v1`;

  let closing: Promise<void> | undefined;

  return {
    url,
    requests,
    contentChunks,
    push(...steps: ScriptStep[]): void {
      if (typeof script === 'function') {
        throw new Error('scripted model: push() needs an array script, but the current script is a function');
      }
      script.push(...steps);
    },
    setScript(next: ScriptStep[] | ScriptFn): void {
      script = next;
      cursor = 0;
    },
    remaining(): number {
      return typeof script === 'function' ? 0 : Math.max(0, script.length - cursor);
    },
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        for (const ac of inFlight) ac.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Scripts per agent

/** The content of the request's first system message (an agent's instructions), if it has one. */
export function systemPrompt(body: unknown): string | undefined {
  const messages = body && typeof body === 'object' ? (body as { messages?: unknown }).messages : undefined;
  if (!Array.isArray(messages)) return undefined;
  const system = messages.find(
    (m: unknown): m is { role: string; content: unknown } =>
      !!m && typeof m === 'object' && (m as { role?: unknown }).role === 'system',
  );
  return system ? messageText(system.content) : undefined;
}

/**
 * One script per agent, for turns where several agents share this server (a parent and its
 * sub-agents): each request goes to the route whose key equals its system prompt (the agent's
 * instructions). An array route is consumed one step per request of that agent; a function route
 * gets `index` counted per route. A request no route matches gets a 500 that names its prompt.
 *
 * @example
 * ```ts
 * model.setScript(scriptByInstructions({
 *   'You plan.': [{ toolCalls: [{ name: 'research', arguments: { input: 'find x' } }] }, { content: 'done' }],
 *   'You research.': [{ content: 'x is 42' }],
 * }));
 * ```
 */
export function scriptByInstructions(routes: Record<string, ScriptStep[] | ScriptFn>): ScriptFn {
  const seen: Record<string, number> = {};
  return ({ body }) => {
    const prompt = systemPrompt(body) ?? '';
    const route = Object.prototype.hasOwnProperty.call(routes, prompt) ? routes[prompt] : undefined;
    if (route === undefined) {
      return {
        error: { status: 500, message: `scripted model: no script for instructions ${JSON.stringify(prompt)}` },
      };
    }
    const index = seen[prompt] ?? 0;
    seen[prompt] = index + 1;
    if (typeof route === 'function') return route({ body, index });
    return (
      route[index] ?? {
        error: {
          status: 500,
          message: `scripted model: script for ${JSON.stringify(prompt)} exhausted after ${index} requests`,
          type: 'server_error',
        },
      }
    );
  };
}

// ---------------------------------------------------------------------------------------------------
// Demo script

interface LooseMessage {
  role?: unknown;
  content?: unknown;
  tool_call_id?: unknown;
  tool_calls?: unknown;
}

function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) => {
        if (typeof part === 'string') return part;
        if (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string') {
          return (part as { text: string }).text;
        }
        return '';
      })
      .join('');
  }
  return '';
}

/** Map tool_call_id -> function name, over the assistant messages in `messages`. */
function toolCallNames(messages: LooseMessage[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of messages) {
    if (m.role !== 'assistant' || !Array.isArray(m.tool_calls)) continue;
    for (const tc of m.tool_calls as unknown[]) {
      if (!tc || typeof tc !== 'object') continue;
      const id = (tc as { id?: unknown }).id;
      const name = (tc as { function?: { name?: unknown } }).function?.name;
      if (typeof id === 'string' && typeof name === 'string') names.set(id, name);
    }
  }
  return names;
}

const FILE_RE = /(?:[\w-]+\/)*[\w-]+(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]*/;

/**
 * The offline demo model (used when no `OPENAI_API_KEY` is set) for the demo agent "assistant", which
 * has the tools `read_file({ path })` and `delete_file({ path })`.
 *
 * Stateless: each answer is derived from `body.messages`. The file is the first `name.ext`-like token
 * in the last user message (default `notes.txt`). After the last user message:
 * 1. no tool result yet → "Let me read <file> first." plus a `read_file` call;
 * 2. last message is the `read_file` result → "I've read it; now I'll delete <file> as you asked." plus a
 *    `delete_file` call;
 * 3. last message is the `delete_file` result → a final summary: "Done: <file> was deleted. Its contents
 *    were: <first 200 chars of the read result>" if the result starts with `Deleted`, otherwise
 *    "I did not delete <file>: <result>".
 *
 * Usage is always `{ prompt_tokens: 50, completion_tokens: 20 }`. Tool call ids are derived from the
 * request index and the conversation length, so they are unique within a conversation.
 */
export function demoScript(): ScriptFn {
  const usage: ScriptUsage = { prompt_tokens: 50, completion_tokens: 20 };
  return ({ body, index }) => {
    const rawMessages: unknown = body && typeof body === 'object' ? (body as { messages?: unknown }).messages : [];
    const messages: LooseMessage[] = Array.isArray(rawMessages)
      ? rawMessages.filter((m): m is LooseMessage => !!m && typeof m === 'object')
      : [];

    let lastUser = -1;
    for (let i = messages.length - 1; i >= 0; i--) {
      if (messages[i]?.role === 'user') {
        lastUser = i;
        break;
      }
    }
    const userText = lastUser >= 0 ? messageText(messages[lastUser]?.content) : '';
    const file = FILE_RE.exec(userText)?.[0] ?? 'notes.txt';
    const after = messages.slice(lastUser + 1);
    const idBase = `call_demo_${index}_${messages.length}`;

    if (!after.some((m) => m.role === 'tool')) {
      return {
        content: `Let me read ${file} first.`,
        toolCalls: [{ id: `${idBase}_read`, name: 'read_file', arguments: { path: file } }],
        usage,
      };
    }

    const names = toolCallNames(after);
    const last = messages[messages.length - 1];
    const lastToolName =
      last?.role === 'tool' && typeof last.tool_call_id === 'string' ? names.get(last.tool_call_id) : undefined;

    if (lastToolName === 'read_file') {
      return {
        content: `I've read it; now I'll delete ${file} as you asked.`,
        toolCalls: [{ id: `${idBase}_delete`, name: 'delete_file', arguments: { path: file } }],
        usage,
      };
    }

    if (lastToolName === 'delete_file') {
      const result = messageText(last?.content);
      if (result.startsWith('Deleted')) {
        const readResult = after.find(
          (m) => m.role === 'tool' && typeof m.tool_call_id === 'string' && names.get(m.tool_call_id) === 'read_file',
        );
        const contents = readResult ? messageText(readResult.content).slice(0, 200) : '';
        return { content: `Done: ${file} was deleted. Its contents were: ${contents}`, usage };
      }
      return { content: `I did not delete ${file}: ${result}`, usage };
    }

    return { content: `I have nothing more to do for ${file}.`, usage };
  };
}
