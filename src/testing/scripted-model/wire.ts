/**
 * The Chat Completions wire shapes of a normal scripted answer: the non-streaming `chat.completion`
 * body and the `chat.completion.chunk` events of a stream. Pure, no Node imports.
 *
 * @module
 */
import type { ScriptToolCall, ScriptUsage } from './script';

export interface FullUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ResolvedToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** One normal answer, resolved: ids, tool call arguments as text and complete usage. */
export interface Answer {
  id: string;
  /** Unix seconds. */
  created: number;
  model: string;
  content: string | undefined;
  toolCalls: ResolvedToolCall[];
  usage: FullUsage;
  finishReason: 'tool_calls' | 'stop';
}

export function fullUsage(u: ScriptUsage): FullUsage {
  return {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.total_tokens ?? u.prompt_tokens + u.completion_tokens,
  };
}

/** Give each call an id (`nextId()` for those without one) and its arguments as text. */
export function resolveToolCalls(calls: ScriptToolCall[] | undefined, nextId: () => string): ResolvedToolCall[] {
  return (calls ?? []).map((c) => ({
    id: c.id ?? nextId(),
    name: c.name,
    arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
  }));
}

/** The non-streaming response body. */
export function completionBody(answer: Answer): Record<string, unknown> {
  const hasToolCalls = answer.toolCalls.length > 0;
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: answer.content ?? (hasToolCalls ? null : ''),
    refusal: null,
  };
  if (hasToolCalls) {
    message.tool_calls = answer.toolCalls.map((tc) => ({
      id: tc.id,
      type: 'function',
      function: { name: tc.name, arguments: tc.arguments },
    }));
  }
  return {
    id: answer.id,
    object: 'chat.completion',
    created: answer.created,
    model: answer.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: answer.finishReason }],
    usage: answer.usage,
  };
}

/** Builds the stream's chunks of one answer. */
export class ChunkBuilder {
  constructor(
    private readonly answer: Answer,
    private readonly chunkSize: number,
    private readonly usageInEveryChunk: boolean,
  ) {}

  /** A chunk with one choice carrying `delta`. */
  chunk(delta: Record<string, unknown>, finish: string | null): Record<string, unknown> {
    const { id, created, model, usage } = this.answer;
    const c: Record<string, unknown> = {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    };
    if (this.usageInEveryChunk) c.usage = usage;
    return c;
  }

  /** The content deltas, `chunkSize` characters each. */
  contentPieces(): string[] {
    return splitText(this.answer.content ?? '', this.chunkSize);
  }

  /** Everything after the content: tool call deltas, the finish chunk, usage if asked for, `[DONE]`. */
  closingEvents(includeUsage: boolean): unknown[] {
    const { id, created, model, usage } = this.answer;
    const events: unknown[] = this.answer.toolCalls.flatMap((tc, index) => this.toolCallChunks(tc, index));
    events.push(this.chunk({}, this.answer.finishReason));
    if (includeUsage) events.push({ id, object: 'chat.completion.chunk', created, model, choices: [], usage });
    events.push('[DONE]');
    return events;
  }

  /** One tool call: its id and name, then its arguments in pieces. */
  private toolCallChunks(tc: ResolvedToolCall, index: number): Record<string, unknown>[] {
    const head = { index, id: tc.id, type: 'function', function: { name: tc.name, arguments: '' } };
    return [
      this.chunk({ tool_calls: [head] }, null),
      ...splitText(tc.arguments, this.chunkSize).map((piece) =>
        this.chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null),
      ),
    ];
  }
}

/** Split text into pieces of at most `size` code points (never splitting a surrogate pair). */
export function splitText(text: string, size: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}
