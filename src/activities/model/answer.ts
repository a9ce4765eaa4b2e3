/**
 * What a wire protocol's reader hands the model activity (`RawAnswer`: unchecked values from the server),
 * and the checks that make it the response history records: plain strings where the protocol says
 * strings, known finish reasons, usage the server reported or an estimate that says so, and no bigger
 * than `BOUNDS.modelResponseBytes`.
 */
import { BOUNDS, clip, jsonBytes } from '../../core/bounds';
import type { AssistantMessage, ChatMessage, ModelResponse, ResponsesState } from '../../core/spec';
import { bad } from './errors';

/** Token counts as Tiller records them. */
export type Tokens = ModelResponse['usage'];

/** One tool call as the server sent it. */
export interface RawCall {
  id?: unknown;
  name?: unknown;
  arguments?: unknown;
}

/** One model response as read off the wire, before any check. */
export interface RawAnswer {
  content: unknown;
  calls: RawCall[];
  /**
   * In Chat Completions' words (`stop`, `tool_calls`, `length`, `content_filter`, or what the server
   * said); the Responses API's status is mapped to them. Absent: the server gave none.
   */
  finishReason?: string;
  /** The server's own count; absent when it reported none. */
  usage?: Tokens;
  /** Reasoning text the server sent beside the answer (`reasoning_content`, `reasoning`, summaries). */
  reasoning?: unknown;
  /** A refusal the model gave in place of an answer. */
  refusal?: unknown;
  /** Responses API: what the next call needs to continue from this one (kept in the conversation). */
  responses?: ResponsesState;
}

/** Reasoning text kept per call: the event shows it, the model never gets it back (Chat Completions). */
export const REASONING_CHARS = 8_000;

/** Tokens per character for an estimate when the server reports no usage (about 4 characters a token). */
const CHARS_PER_TOKEN = 4;

/** Usage estimated from what was sent and received: marked as such wherever it is shown. */
export function estimateUsage(messages: readonly ChatMessage[], tools: unknown, answer: AssistantMessage): Tokens {
  const inputTokens = Math.ceil(
    (JSON.stringify(messages).length + JSON.stringify(tools ?? []).length) / CHARS_PER_TOKEN,
  );
  const said = (answer.content ?? '').length + JSON.stringify(answer.tool_calls ?? []).length;
  const outputTokens = Math.ceil(said / CHARS_PER_TOKEN);
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}

/** A usage object from a server, as counts (negative, fractional or absurd numbers are not counts). */
export function tokens(input: unknown, output: unknown, total?: unknown): Tokens | undefined {
  const count = (n: unknown) => (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined);
  const inputTokens = count(input);
  const outputTokens = count(output);
  if (inputTokens === undefined && outputTokens === undefined) return undefined;
  const i = inputTokens ?? 0;
  const o = outputTokens ?? 0;
  return { inputTokens: i, outputTokens: o, totalTokens: count(total) ?? i + o };
}

/** A tool call's arguments as the JSON string the protocol says they are (some servers send an object). */
function argumentsText(args: unknown, i: number): string {
  if (args === undefined || args === null) return '';
  if (typeof args === 'string') return args;
  if (typeof args === 'object') {
    const text = JSON.stringify(args);
    if (text !== undefined) return text;
  }
  return bad(`tool call ${i} has arguments that are not a JSON string`);
}

/** The assistant message history records, checked; `call` names calls the server gave no id. */
export function assistantMessage(raw: RawAnswer, call: number): AssistantMessage {
  if (raw.content !== null && raw.content !== undefined && typeof raw.content !== 'string')
    bad('message content is not a string');
  const message: AssistantMessage = { role: 'assistant', content: (raw.content as string | undefined) ?? null };
  if (raw.calls.length > 0) {
    message.tool_calls = raw.calls.map((c, i) => {
      if (typeof c.name !== 'string' || !c.name) bad(`tool call ${i} has no function name`);
      if (c.id !== undefined && c.id !== null && typeof c.id !== 'string') bad(`tool call ${i} has a non-string id`);
      return {
        id: (c.id as string) || `call_${call}_${i}`,
        type: 'function',
        function: { name: c.name, arguments: argumentsText(c.arguments, i) },
      };
    });
  }
  if (raw.responses) message.responses = raw.responses;
  const bytes = jsonBytes(message);
  if (bytes > BOUNDS.modelResponseBytes)
    bad(`${bytes} bytes, more than the ${BOUNDS.modelResponseBytes} a turn records`);
  return message;
}

/**
 * The finish reason checked against what was said: a response that ended on tool calls must have them.
 * Absent (a unary answer from a server that leaves it out): inferred from the calls.
 */
export function finishReasonOf(raw: RawAnswer, message: AssistantMessage): string {
  const reason = typeof raw.finishReason === 'string' ? clip(raw.finishReason, BOUNDS.name) : undefined;
  const hasCalls = (message.tool_calls?.length ?? 0) > 0;
  if ((reason === 'tool_calls' || reason === 'function_call') && !hasCalls && !message.content)
    bad(`finish_reason ${reason} with no tool call and no text`);
  return reason ?? (hasCalls ? 'tool_calls' : 'stop');
}

/** Reasoning text, if the server sent any that is text: clipped to `REASONING_CHARS`. */
export function reasoningOf(raw: RawAnswer): string | undefined {
  return typeof raw.reasoning === 'string' && raw.reasoning.length > 0
    ? clip(raw.reasoning, REASONING_CHARS)
    : undefined;
}

/** A refusal, if the model gave one as text: clipped to `BOUNDS.text`. */
export function refusalOf(raw: RawAnswer): string | undefined {
  return typeof raw.refusal === 'string' && raw.refusal.length > 0 ? clip(raw.refusal, BOUNDS.text) : undefined;
}
