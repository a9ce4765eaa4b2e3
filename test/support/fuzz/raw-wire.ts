/**
 * Raw Chat Completions bodies for the scripted model's `garbage` step: a whole response the fuzz
 * writes itself, so any field can have any type (the scripted model's normal steps only produce
 * well-typed answers).
 */
import type { ScriptStep } from '../../../src/testing/scripted-model';

/** A non-streaming `chat.completion` body around `message` (any value), with `patch` over the top level. */
export function rawCompletion(message: unknown, patch: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id: 'chatcmpl-fuzz',
    object: 'chat.completion',
    created: 0,
    model: 'scripted',
    choices: [{ index: 0, message, logprobs: null, finish_reason: 'tool_calls' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    ...patch,
  });
}

/** A `chat.completion.chunk` with one choice carrying `delta` (any value). */
export function rawChunk(delta: unknown, finish: unknown = null): Record<string, unknown> {
  return {
    id: 'chatcmpl-fuzz',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'scripted',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  };
}

/** An event stream of these chunks (each any value, JSON-encoded), then `[DONE]`. */
export function rawStream(chunks: unknown[]): string {
  return chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';
}

/** A garbage step: this exact body, labelled as the kind of response the client asked for. */
export const rawStep = (body: string, status = 200): ScriptStep => ({ garbage: body, status });
