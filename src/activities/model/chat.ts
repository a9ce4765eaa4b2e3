/**
 * The Chat Completions wire: the request from a prompt, and the response read off the stream (or the
 * body) as a `RawAnswer`. Written for the servers people use, not only OpenAI's: see the conformance
 * suite (test/unit/model-conformance.test.ts) for each quirk and what Tiller does with it.
 */
import OpenAI from 'openai';
import type { ChatCompletionCreateParams } from 'openai/resources/chat/completions';
import { BOUNDS } from '../../core/bounds';
import { chatCompletionFields, maxTokensFieldFor, type MaxTokensField } from '../../core/model-settings';
import type { ChatMessage } from '../../core/spec';
import { REASONING_CHARS, tokens, type RawAnswer } from './answer';
import { bad } from './errors';
import type { Prompt } from './prompt';

/** The messages as Chat Completions takes them: what only the Responses API needs is left out. */
function chatMessages(messages: readonly ChatMessage[]): ChatCompletionCreateParams['messages'] {
  return messages.map((m) => {
    if (m.role !== 'assistant' || m.responses === undefined) return m;
    const { responses: _, ...rest } = m;
    return rest;
  }) as ChatCompletionCreateParams['messages'];
}

export function chatParams(req: Prompt, maxTokensField: MaxTokensField): ChatCompletionCreateParams {
  return {
    ...(req.output && {
      response_format: {
        type: 'json_schema' as const,
        json_schema: { name: req.output.name, schema: req.output.schema, strict: req.output.strict },
      },
    }),
    // The agent's settings next (extraBody may replace response_format); the fields Tiller sets win.
    ...(chatCompletionFields(req.settings, maxTokensField) as Partial<ChatCompletionCreateParams>),
    model: req.model,
    messages: chatMessages(req.messages),
    ...(req.tools.length > 0 && {
      tools: req.tools.map((t) => ({
        type: 'function' as const,
        function: { name: t.name, description: t.description, parameters: t.parameters },
      })),
    }),
  };
}

/** Reasoning text servers put beside the answer: `reasoning_content` (llama.cpp, vLLM, DeepSeek) or `reasoning`. */
function reasoningText(from: unknown): string | undefined {
  if (!from || typeof from !== 'object') return undefined;
  const { reasoning_content: a, reasoning: b } = from as { reasoning_content?: unknown; reasoning?: unknown };
  return typeof a === 'string' ? a : typeof b === 'string' ? b : undefined;
}

function usageOf(u: unknown) {
  if (!u || typeof u !== 'object') return undefined;
  const { prompt_tokens, completion_tokens, total_tokens } = u as Record<string, unknown>;
  return tokens(prompt_tokens, completion_tokens, total_tokens);
}

type Slot = { id: string; name: string; arguments: string };

/**
 * Where a tool call delta goes. By `index` (OpenAI; later deltas may carry no id); a server that sends
 * no index sends each call whole or continues the last one, told apart by a new id.
 */
function slotFor(calls: Slot[], tc: { index?: unknown; id?: unknown }): Slot {
  if (tc.index === undefined || tc.index === null) {
    const last = calls.at(-1);
    if (last && !(typeof tc.id === 'string' && tc.id && last.id && tc.id !== last.id)) return last;
    return (calls[calls.length] = { id: '', name: '', arguments: '' });
  }
  if (!Number.isInteger(tc.index) || (tc.index as number) < 0 || (tc.index as number) >= BOUNDS.callsReadPerResponse)
    bad('a tool call delta with a bad index');
  return (calls[tc.index as number] ??= { id: '', name: '', arguments: '' });
}

export async function streamedChat(
  client: OpenAI,
  req: Prompt,
  signal: AbortSignal,
  heartbeat: (content: string) => void,
): Promise<RawAnswer> {
  const stream = await client.chat.completions.create(
    { ...chatParams(req, maxTokensFieldFor(client.baseURL)), stream: true, stream_options: { include_usage: true } },
    { signal },
  );
  let content = '';
  let sawContent = false;
  let reasoning = '';
  let refusal = '';
  let finishReason: string | undefined;
  // Some providers repeat cumulative usage on many chunks: keep the last one, never sum.
  let usage: unknown;
  const calls: Slot[] = [];
  for await (const chunk of stream as AsyncIterable<unknown>) {
    if (!chunk || typeof chunk !== 'object') bad('a stream chunk that is not an object');
    const { choices, usage: u } = chunk as { choices?: unknown; usage?: unknown };
    if (u) usage = u;
    // The last chunk of a stream with usage has `choices: []`; a chunk without the field is a server's own.
    if (choices !== undefined && !Array.isArray(choices)) bad('stream chunk whose choices are not a list');
    for (const choice of (choices ?? []) as { finish_reason?: unknown; delta?: Record<string, unknown> }[]) {
      if (!choice || typeof choice !== 'object') bad('a stream choice that is not an object');
      // A later chunk with `finish_reason: null` does not take back an earlier one.
      if (typeof choice.finish_reason === 'string' && choice.finish_reason) finishReason = choice.finish_reason;
      const delta = choice.delta;
      if (!delta || typeof delta !== 'object') continue;
      if (typeof delta.content === 'string') {
        if (content.length + delta.content.length > BOUNDS.modelResponseBytes)
          bad('streamed text past the size a turn records');
        content += delta.content;
        sawContent ||= delta.content.length > 0;
      }
      const thought = reasoningText(delta);
      if (thought && reasoning.length < REASONING_CHARS) reasoning += thought;
      if (typeof delta.refusal === 'string' && refusal.length < BOUNDS.text) refusal += delta.refusal;
      const toolCalls = delta.tool_calls;
      if (toolCalls !== undefined && toolCalls !== null && !Array.isArray(toolCalls))
        bad('a delta whose tool_calls are not a list');
      for (const tc of (toolCalls ?? []) as { index?: unknown; id?: unknown; function?: Record<string, unknown> }[]) {
        if (!tc || typeof tc !== 'object') bad('a tool call delta that is not an object');
        const slot = slotFor(calls, tc);
        if (typeof tc.id === 'string' && tc.id) slot.id = tc.id;
        // The name is set, not appended: servers that repeat it in every delta (llama.cpp, llama-cpp-python)
        // would otherwise name a tool `read_fileread_file…`; the `openai` SDK's own reader sets it too.
        if (typeof tc.function?.name === 'string' && tc.function.name) slot.name = tc.function.name;
        if (typeof tc.function?.arguments === 'string') slot.arguments += tc.function.arguments;
        if (slot.name.length + slot.arguments.length > BOUNDS.modelResponseBytes)
          bad('a streamed tool call past the size a turn records');
      }
    }
    // Every chunk proves the call alive; the worker throttles what reaches the server (the batching).
    heartbeat(content);
  }
  // A stream that ends without saying how it ended was cut (or the server's handler failed after
  // answering 200, as llama-cpp-python's does): never an answer. Retried.
  if (finishReason === undefined) {
    const got = sawContent || calls.some(Boolean) ? 'after part of an answer' : 'with nothing in it';
    bad(`the stream ended without a finish_reason, ${got}`);
  }
  return {
    content: sawContent ? content : null,
    calls: calls.filter(Boolean),
    finishReason,
    usage: usageOf(usage),
    ...(reasoning && { reasoning }),
    ...(refusal && { refusal }),
  };
}

export async function unaryChat(client: OpenAI, req: Prompt, signal: AbortSignal): Promise<RawAnswer> {
  const completion: unknown = await client.chat.completions.create(
    { ...chatParams(req, maxTokensFieldFor(client.baseURL)), stream: false },
    { signal },
  );
  const { choices, usage } = (completion ?? {}) as { choices?: unknown; usage?: unknown };
  const choice = Array.isArray(choices) ? (choices[0] as Record<string, unknown> | undefined) : undefined;
  const message = choice?.message as Record<string, unknown> | undefined;
  if (!message || typeof message !== 'object') bad('no choices in the completion');
  const toolCalls = message.tool_calls;
  if (toolCalls !== undefined && toolCalls !== null && !Array.isArray(toolCalls))
    bad('the message has tool_calls that are not a list');
  // `type` may be missing (some servers leave it out); any other type is not a function call.
  const calls = ((toolCalls ?? []) as { type?: unknown; id?: unknown; function?: Record<string, unknown> }[]).flatMap(
    (tc) =>
      tc && typeof tc === 'object' && (tc.type === undefined || tc.type === 'function')
        ? [{ id: tc.id, name: tc.function?.name, arguments: tc.function?.arguments }]
        : [],
  );
  return {
    content: message.content ?? null,
    calls,
    ...(typeof choice?.finish_reason === 'string' && { finishReason: choice.finish_reason }),
    usage: usageOf(usage),
    ...(reasoningText(message) && { reasoning: reasoningText(message) }),
    ...(typeof message.refusal === 'string' && { refusal: message.refusal }),
  };
}
