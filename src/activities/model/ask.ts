/**
 * One model call on the wire its request and endpoint choose — Chat Completions (./chat.ts), streamed
 * or not, or the Responses API (./responses.ts) — and the raw answer as the workflow gets it: checked,
 * bounded, its usage reported or estimated.
 */
import type { ModelApi, ModelResponse } from '../../core/spec';
import { assistantMessage, estimateUsage, finishReasonOf, reasoningOf, refusalOf, type RawAnswer } from './answer';
import { streamedChat, unaryChat } from './chat';
import type { ModelEndpoint } from './endpoints';
import type { Prompt } from './prompt';
import { respond } from './responses';

/** One call on the wire the request and its endpoint choose. */
export function ask(endpoint: ModelEndpoint, prompt: Prompt, signal: AbortSignal, beat: (text: string) => void) {
  const api = prompt.api ?? endpoint.api ?? 'chat';
  if (api === 'responses') return respond(endpoint.client, prompt, { signal, beat, store: endpoint.store ?? false });
  return prompt.stream
    ? streamedChat(endpoint.client, prompt, signal, beat)
    : unaryChat(endpoint.client, prompt, signal);
}

export /** The raw answer as the workflow gets it: checked, bounded, its usage reported or estimated. */
function responseOf(raw: RawAnswer, prompt: Prompt, api: ModelApi) {
  const message = assistantMessage(raw, prompt.call);
  const usage = raw.usage ?? estimateUsage(prompt.messages, prompt.tools, message);
  const reasoning = reasoningOf(raw);
  const refusal = refusalOf(raw);
  return {
    message,
    usage,
    usageSource: raw.usage ? (prompt.stream ? 'stream' : 'response') : 'estimated',
    finishReason: finishReasonOf(raw, message),
    ...(reasoning !== undefined && { reasoning }),
    ...(refusal !== undefined && { refusal }),
    ...(api !== 'chat' && { api }),
  } satisfies Omit<ModelResponse, 'durationMs'>;
}
