/**
 * `POST /v1/responses`: OpenAI's Responses API, played from the same script as Chat Completions (so one
 * script gives the same turn on either API). The request is checked as OpenAI checks it where a client
 * could get it wrong — a `previous_response_id` the server does not keep is a 404, a
 * `function_call_output` whose `call_id` no `function_call` in the conversation made is a 400 — and
 * answered from the script's next step: an error, garbage, a reset, or a normal answer, whole or as
 * typed events. Responses are kept in memory unless the request says `store: false`.
 *
 * A function script reads the request as it reads a Chat Completions one: its `body` is the request
 * body with `messages` added, the whole conversation (the kept responses' and this input, the
 * instructions as the system message) as Chat Completions messages.
 *
 * @module
 */
import type * as http from 'node:http';

import { parseBody, whileOpen, type ServerState } from './chat-completions';
import { sendErrorStep, sendGarbage, sendJson } from './respond';
import { ResponsesEventBuilder, responseBody, sseText, type ResponsesAnswer } from './responses-wire';
import type { NormalStep } from './script';
import { sleep, tick } from './timers';
import { fullUsage, resolveToolCalls } from './wire';

/** A conversation message as Chat Completions has it (what scripts read). */
export interface ChatShapedMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** What the Responses route keeps beside the server's state. */
export interface ResponsesServerState {
  /** Kept responses by id: the conversation up to and including each one's answer (no instructions). */
  stored: Map<string, ChatShapedMessage[]>;
  responseCount: number;
  itemCount: number;
}

export function initialResponsesState(): ResponsesServerState {
  return { stored: new Map(), responseCount: 0, itemCount: 0 };
}

type JsonObject = Record<string, unknown>;

/** An OpenAI-style error the request earns before any script step is taken. */
interface RequestError {
  status: number;
  message: string;
  param: string;
  code: string | null;
}

/** Answer one Responses request whose body is `raw`. */
export async function handleResponses(
  state: ServerState & ResponsesServerState,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  raw: string,
): Promise<void> {
  const body = parseBody(res, raw);
  if (body === undefined) return;
  const stream = body.stream === true;
  state.requests.push({ api: 'responses', body, stream, headers: { ...req.headers }, at: Date.now() });
  const conversation = conversationOf(state, body);
  if ('error' in conversation) return sendRequestError(res, conversation.error);
  const instructions = typeof body.instructions === 'string' && body.instructions ? body.instructions : undefined;
  const messages = [...(instructions ? [{ role: 'system', content: instructions }] : []), ...conversation.messages];
  const step = state.script.next({ ...body, messages }, state.requestCount++);

  if ('reset' in step) return void req.socket.destroy();
  if ('error' in step) return sendErrorStep(res, step);
  if ('garbage' in step) return sendGarbage(res, step, stream);
  await whileOpen(state.inFlight, res, (signal) =>
    answerNormal(state, res, step, body, conversation.messages, stream, signal),
  );
}

function sendRequestError(res: http.ServerResponse, e: RequestError): void {
  sendJson(
    res,
    e.status,
    JSON.stringify({ error: { message: e.message, type: 'invalid_request_error', param: e.param, code: e.code } }),
  );
}

/** The conversation the request continues (a kept response's) and adds to (its input), or why not. */
function conversationOf(
  state: ResponsesServerState,
  body: JsonObject,
): { messages: ChatShapedMessage[] } | { error: RequestError } {
  const previous = body.previous_response_id;
  let prior: ChatShapedMessage[] = [];
  if (previous !== undefined && previous !== null) {
    const kept = typeof previous === 'string' ? state.stored.get(previous) : undefined;
    if (!kept) {
      return {
        error: {
          status: 404,
          message: `Previous response with id '${String(previous)}' not found.`,
          param: 'previous_response_id',
          code: 'previous_response_not_found',
        },
      };
    }
    prior = kept;
  }
  const input = body.input;
  const items = typeof input === 'string' ? [{ role: 'user', content: input }] : (input ?? []);
  if (!Array.isArray(items))
    return {
      error: { status: 400, message: "Invalid 'input': expected a string or a list.", param: 'input', code: null },
    };
  const messages = [...prior];
  for (const [i, item] of items.entries()) {
    const problem = addItem(messages, item);
    if (problem) return { error: { status: 400, message: problem, param: `input[${i}]`, code: null } };
  }
  return { messages };
}

/** Adds one input item to the conversation as Chat Completions would hold it; a problem as OpenAI says it. */
function addItem(messages: ChatShapedMessage[], item: unknown): string | undefined {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return 'Invalid input item: expected an object.';
  const it = item as JsonObject;
  // As llama-server reads them: an untyped item is a message only from the user, system or developer
  // (the API reference lets `type` be left out of any; a strict server cannot tell an untyped answer).
  const untypedMessage = it.role === 'user' || it.role === 'system' || it.role === 'developer';
  const type = it.type ?? (untypedMessage ? 'message' : undefined);
  if (type === undefined) return "Cannot determine type of 'item'";
  if (type === 'message') {
    const role = it.role === 'developer' ? 'system' : it.role;
    if (role !== 'system' && role !== 'user' && role !== 'assistant')
      return `Invalid role: ${JSON.stringify(it.role)}.`;
    messages.push({ role, content: itemText(it.content) });
    return undefined;
  }
  if (type === 'function_call') {
    const call = {
      id: String(it.call_id),
      type: 'function' as const,
      function: { name: String(it.name), arguments: typeof it.arguments === 'string' ? it.arguments : '' },
    };
    // A call continues the assistant message before it (copied: a kept conversation is never changed).
    const last = messages.at(-1);
    if (last?.role === 'assistant')
      messages[messages.length - 1] = { ...last, tool_calls: [...(last.tool_calls ?? []), call] };
    else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    return undefined;
  }
  if (type === 'function_call_output') {
    const callId = it.call_id;
    const made = messages.some((m) => m.tool_calls?.some((tc) => tc.id === callId));
    if (typeof callId !== 'string' || !made)
      return `No tool call found for function call output with call_id ${String(callId)}.`;
    messages.push({ role: 'tool', tool_call_id: callId, content: itemText(it.output) });
    return undefined;
  }
  // Reasoning items, item references and others carry nothing a script reads.
  return undefined;
}

/** A message's or output's text: a string as is, the `text` of its parts joined. */
function itemText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) =>
      p && typeof p === 'object' && typeof (p as JsonObject).text === 'string' ? (p as JsonObject).text : '',
    )
    .join('');
}

/** A normal step: wait its `delayMs`, keep the response (unless `store: false`), then send it or stream it. */
async function answerNormal(
  state: ServerState & ResponsesServerState,
  res: http.ServerResponse,
  step: NormalStep,
  body: JsonObject,
  conversation: ChatShapedMessage[],
  stream: boolean,
  signal: AbortSignal,
): Promise<void> {
  if (step.delayMs !== undefined && step.delayMs > 0) {
    const completed = await sleep(step.delayMs, signal);
    if (!completed) return;
  }
  if (signal.aborted) return;

  const answer = resolveAnswer(state, step, body);
  // A response cut off mid-stream is never kept (it did not complete).
  if (body.store !== false && step.breakAfterChunks === undefined)
    state.stored.set(answer.id, [...conversation, assistantMessage(answer)]);
  if (!stream) return sendJson(res, 200, JSON.stringify(responseBody(answer)));
  await streamEvents(state, res, answer, step, signal);
}

/** The answer as the conversation keeps it. */
function assistantMessage(a: ResponsesAnswer): ChatShapedMessage {
  return {
    role: 'assistant',
    content: a.message?.text ?? null,
    ...(a.calls.length > 0 && {
      tool_calls: a.calls.map(({ call }) => ({
        id: call.id,
        type: 'function' as const,
        function: { name: call.name, arguments: call.arguments },
      })),
    }),
  };
}

/** Number the response and its items, and fill in the model name and usage. */
function resolveAnswer(state: ServerState & ResponsesServerState, step: NormalStep, body: JsonObject): ResponsesAnswer {
  const n = ++state.responseCount;
  const item = (prefix: string) => `${prefix}_scripted_${n}_${++state.itemCount}`;
  // The same counter as Chat Completions: a script gives the same call ids on either API.
  const calls = resolveToolCalls(step.toolCalls, () => `call_${++state.toolCallCount}`);
  const text = step.echo
    ? echoResponsesSettings(body)
    : step.json !== undefined
      ? JSON.stringify(step.json)
      : step.content;
  const include = Array.isArray(body.include) ? body.include : [];
  return {
    id: `resp_scripted_${n}`,
    createdAt: Math.floor(Date.now() / 1000),
    model: typeof body.model === 'string' ? body.model : 'scripted',
    ...(step.reasoning !== undefined && {
      reasoning: {
        id: item('rs'),
        summary: step.reasoning,
        ...(include.includes('reasoning.encrypted_content') && {
          encryptedContent: Buffer.from(JSON.stringify({ scripted: n, summary: step.reasoning })).toString('base64'),
        }),
      },
    }),
    // An empty text is no message item (as a model that only calls tools sends none).
    ...(text !== undefined && text !== '' && { message: { id: item('msg'), text } }),
    calls: calls.map((call) => ({ itemId: item('fc'), call })),
    ...(step.incomplete !== undefined && { incomplete: step.incomplete }),
    usage: fullUsage(step.usage ?? state.defaultUsage),
    echo: {
      instructions: body.instructions,
      previousResponseId: body.previous_response_id,
      store: body.store !== false,
      tools: body.tools,
      toolChoice: body.tool_choice,
      text: body.text,
    },
  };
}

/** The request's settings (everything but the conversation, the tools and `stream`) as JSON text. */
export function echoResponsesSettings(body: JsonObject): string {
  const skip = ['input', 'instructions', 'previous_response_id', 'tools', 'stream'];
  return JSON.stringify(Object.fromEntries(Object.entries(body).filter(([key]) => !skip.includes(key))));
}

/** Stream the answer's events; text deltas wait the step's `chunkDelayMs`, and its `breakAfterChunks` cuts them. */
async function streamEvents(
  state: ServerState,
  res: http.ServerResponse,
  answer: ResponsesAnswer,
  step: NormalStep,
  signal: AbortSignal,
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  let chunks = 0;
  for (const event of new ResponsesEventBuilder(answer, state.chunkSize).events()) {
    if (event.text !== undefined) {
      if (step.chunkDelayMs && !(await sleep(step.chunkDelayMs, signal))) return;
      if (step.breakAfterChunks !== undefined && chunks >= step.breakAfterChunks) return void res.destroy();
      chunks++;
    }
    if (signal.aborted || res.destroyed) return;
    res.write(sseText(event));
    if (event.text !== undefined) state.contentChunks.push({ at: Date.now(), text: event.text });
    await tick();
  }
  if (!signal.aborted && !res.destroyed) res.end();
}
