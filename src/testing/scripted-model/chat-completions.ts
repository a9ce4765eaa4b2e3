/**
 * `POST /v1/chat/completions`: parse the body, record the request, take the script's next step and
 * answer with it (an error, garbage, or a normal answer, streamed or not).
 *
 * @module
 */
import type * as http from 'node:http';

import type { RecordedRequest } from './api';
import { errorBody, sendErrorStep, sendGarbage, sendJson } from './respond';
import type { NormalStep, ScriptUsage } from './script';
import type { ScriptCursor } from './script-cursor';
import { streamAnswer } from './stream';
import { sleep } from './timers';
import { completionBody, fullUsage, resolveToolCalls, type Answer } from './wire';

/** Everything one server keeps across requests. */
export interface ServerState {
  script: ScriptCursor;
  chunkSize: number;
  defaultUsage: ScriptUsage;
  /** See ScriptedModelOptions.contextLimit. */
  contextLimit?: number;
  /** See ScriptedModelOptions.contextRefusal. */
  contextRefusal?: 'openai' | 'llama';
  usageInEveryChunk: boolean;
  requests: RecordedRequest[];
  contentChunks: { at: number; text: string }[];
  /** One controller per normal answer being written; aborted when its client goes or on close. */
  inFlight: Set<AbortController>;
  /** Chat-completions requests seen (valid JSON). */
  requestCount: number;
  toolCallCount: number;
  completionCount: number;
}

type JsonObject = Record<string, unknown>;

/** Answer one chat-completions request whose body is `raw`. */
export async function handleCompletion(
  state: ServerState,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  raw: string,
): Promise<void> {
  const body = parseBody(res, raw);
  if (body === undefined) return;
  const stream = body.stream === true;
  state.requests.push({ api: 'chat', body, stream, headers: { ...req.headers }, at: Date.now() });
  const promptTokens = state.contextLimit === undefined ? undefined : countPromptTokens(body);
  if (promptTokens !== undefined && promptTokens > state.contextLimit!) {
    return sendJson(res, 400, JSON.stringify(contextRefusal(state, promptTokens)));
  }
  const step = state.script.next(body, state.requestCount++);

  if ('reset' in step) return void req.socket.destroy();
  if ('error' in step) return sendErrorStep(res, step);
  if ('garbage' in step) return sendGarbage(res, step, stream);
  const counted =
    promptTokens !== undefined && !step.usage
      ? { ...step, usage: { ...state.defaultUsage, prompt_tokens: promptTokens } }
      : step;
  await whileOpen(state.inFlight, res, (signal) => answerNormal(state, res, counted, body, stream, signal));
}

/** The body as a JSON object, or undefined once a 400 was sent. */
export function parseBody(res: http.ServerResponse, raw: string): JsonObject | undefined {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    sendJson(res, 400, errorBody('scripted model: request body is not valid JSON', 'invalid_request_error'));
    return undefined;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    sendJson(res, 400, errorBody('scripted model: request body must be a JSON object', 'invalid_request_error'));
    return undefined;
  }
  return body as JsonObject;
}

/** Run `answer` with a signal that aborts if the client goes before the response finished. */
export async function whileOpen(
  inFlight: Set<AbortController>,
  res: http.ServerResponse,
  answer: (signal: AbortSignal) => Promise<void>,
): Promise<void> {
  const ac = new AbortController();
  inFlight.add(ac);
  const onClose = (): void => {
    if (!res.writableFinished) ac.abort();
  };
  res.on('close', onClose);
  try {
    await answer(ac.signal);
  } finally {
    res.off('close', onClose);
    inFlight.delete(ac);
  }
}

/** A normal step: wait its `delayMs`, then send the completion or stream it. */
async function answerNormal(
  state: ServerState,
  res: http.ServerResponse,
  step: NormalStep,
  body: JsonObject,
  stream: boolean,
  signal: AbortSignal,
): Promise<void> {
  if (step.delayMs !== undefined && step.delayMs > 0) {
    const completed = await sleep(step.delayMs, signal);
    if (!completed) return;
  }
  if (signal.aborted) return;

  const answer = resolveAnswer(state, step, body);
  if (!stream) return sendJson(res, 200, JSON.stringify(completionBody(answer)));
  const streamOptions = body.stream_options as { include_usage?: unknown } | undefined | null;
  const settings = {
    chunkSize: state.chunkSize,
    usageInEveryChunk: state.usageInEveryChunk,
    includeUsage: streamOptions?.include_usage === true,
    onContentChunk: (text: string): void => {
      state.contentChunks.push({ at: Date.now(), text });
    },
  };
  await streamAnswer(res, answer, step, settings, signal);
}

/** Number the completion and its tool calls, and fill in the model name and usage. */
function resolveAnswer(state: ServerState, step: NormalStep, body: JsonObject): Answer {
  const toolCalls = resolveToolCalls(step.toolCalls, () => `call_${++state.toolCallCount}`);
  return {
    id: `chatcmpl-scripted-${++state.completionCount}`,
    created: Math.floor(Date.now() / 1000),
    model: typeof body.model === 'string' ? body.model : 'scripted',
    content: step.echo ? echoSettings(body) : step.json !== undefined ? JSON.stringify(step.json) : step.content,
    toolCalls,
    usage: fullUsage(step.usage ?? state.defaultUsage),
    finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
  };
}

/** The body of a refusal of a prompt of `promptTokens` past the context limit, as OpenAI or llama-server word it. */
function contextRefusal(state: ServerState, promptTokens: number): JsonObject {
  const limit = state.contextLimit!;
  if (state.contextRefusal === 'llama') {
    const message = 'the request exceeds the available context size, try increasing it';
    return {
      error: { code: 400, message, type: 'exceed_context_size_error', n_prompt_tokens: promptTokens, n_ctx: limit },
    };
  }
  const message = `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${promptTokens} tokens.`;
  return { error: { message, type: 'invalid_request_error', code: 'context_length_exceeded', param: 'messages' } };
}

/** The request's settings (everything but the conversation and the streaming fields) as JSON text. */
export function echoSettings(body: JsonObject): string {
  const settings = Object.entries(body).filter(
    ([key]) => !['messages', 'tools', 'stream', 'stream_options'].includes(key),
  );
  return JSON.stringify(Object.fromEntries(settings));
}

/** The request's prompt in tokens, as the scripted model counts them: four characters of its messages and tools. */
export function countPromptTokens(body: JsonObject): number {
  return Math.ceil((JSON.stringify(body.messages ?? []).length + JSON.stringify(body.tools ?? []).length) / 4);
}
