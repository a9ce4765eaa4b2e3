/**
 * A Responses API response read as the `RawAnswer` every wire gives (./answer.ts): its output items, how it
 * ended, its usage and id, and the failure a failed response or an error event is. Shared by the whole
 * response (./responses.ts) and the streamed one (./responses-stream.ts).
 *
 * Everything the server sends is untrusted: wrong types, missing fields and huge values end in a defined
 * outcome (an answer, or `bad()`: retried), never in a crash.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { BOUNDS, clip, deeperThan } from '../../core/bounds';
import { FailureType } from '../../core/failures';
import { REASONING_CHARS, tokens, type RawAnswer, type RawCall } from './answer';
import { bad } from './errors';
import { isObject, type Json } from './responses-request';

/** Output items read per response: more is not a model's answer (a call per item, far past what a turn runs). */
export const MAX_OUTPUT_ITEMS = BOUNDS.callsReadPerResponse;
/** A response id longer than this is not one Tiller keeps (OpenAI's are about 50 characters). */
const MAX_RESPONSE_ID = 256;

/** Error codes that say the request itself is wrong: asking again will not help. */
const NOT_RETRIED = new Set(['context_length_exceeded', 'invalid_prompt', 'invalid_request_error']);

/** A failed response (`response.failed`) or an `error` event: a Temporal failure, retried unless the code says not. */
export function failure(what: string, error: unknown): never {
  const e = isObject(error) ? error : {};
  const code = typeof e.code === 'string' ? clip(e.code, BOUNDS.name) : undefined;
  const message = clip(typeof e.message === 'string' ? e.message : 'no message', BOUNDS.text);
  const said = `${what}${code ? ` (${code})` : ''}: ${message}`;
  if (code === 'rate_limit_exceeded')
    throw ApplicationFailure.create({ type: FailureType.ModelRateLimited, message: `model endpoint: ${said}` });
  if (code && (NOT_RETRIED.has(code) || code.startsWith('invalid_') || code.includes('image')))
    throw ApplicationFailure.create({
      type: FailureType.ModelBadRequest,
      message: `model endpoint: ${said}`,
      nonRetryable: true,
    });
  return bad(said);
}

/** Reasoning text of a reasoning item: its summary, else its content (open-weight models' raw reasoning). */
function reasoningTextOf(item: Json): string {
  const parts = (list: unknown) =>
    Array.isArray(list) ? list.flatMap((p) => (isObject(p) && typeof p.text === 'string' ? [p.text] : [])) : [];
  const summary = parts(item.summary);
  return (summary.length > 0 ? summary : parts(item.content)).join('\n\n');
}

/** A response's output items as a `RawAnswer` (without finish reason, usage and id). */
function readOutput(output: readonly unknown[]): RawAnswer {
  if (output.length > MAX_OUTPUT_ITEMS) bad(`${output.length} output items, more than ${MAX_OUTPUT_ITEMS}`);
  let text: string | null = null;
  let refusal = '';
  let reasoning = '';
  const kept: unknown[] = [];
  const calls: RawCall[] = [];
  const addText = (t: string) => {
    if ((text?.length ?? 0) + t.length > BOUNDS.modelResponseBytes) bad('output text past the size a turn records');
    text = (text ?? '') + t;
  };
  for (const item of output) {
    if (!isObject(item)) bad('an output item that is not an object');
    const type = item.type ?? (item.role === 'assistant' ? 'message' : undefined);
    if (type === 'message') {
      if (typeof item.content === 'string') addText(item.content);
      else if (Array.isArray(item.content)) {
        for (const part of item.content) {
          if (!isObject(part)) continue;
          if (part.type === 'output_text' && typeof part.text === 'string') addText(part.text);
          else if (part.type === 'refusal' && typeof part.refusal === 'string' && refusal.length < BOUNDS.text)
            refusal += part.refusal;
        }
      } else if (item.content !== undefined && item.content !== null) bad('a message whose content is not a list');
    } else if (type === 'function_call') {
      if (typeof item.arguments === 'string' && item.arguments.length > BOUNDS.modelResponseBytes)
        bad('a tool call past the size a turn records');
      calls.push({ id: item.call_id ?? undefined, name: item.name, arguments: item.arguments });
    } else if (type === 'reasoning') {
      // Kept whole and opaque (its `encrypted_content` is what the next call needs); bounded as plain JSON.
      if (deeperThan(item, BOUNDS.jsonDepth)) bad(`a reasoning item nested deeper than ${BOUNDS.jsonDepth} levels`);
      kept.push(item);
      const said = reasoningTextOf(item);
      if (said && reasoning.length < REASONING_CHARS)
        reasoning += (reasoning ? '\n\n' : '') + said.slice(0, REASONING_CHARS);
    }
    // Other items (a hosted tool's call, …) are not Tiller's: an agent offers function tools only.
  }
  return {
    content: text,
    calls,
    ...(reasoning && { reasoning }),
    ...(refusal && { refusal }),
    ...(kept.length > 0 && { responses: { reasoning: kept } }),
  };
}

/** How a finished response ended, in Chat Completions' words; a failed or unfinished one throws. */
function finishOf(response: Json, calls: number): string | undefined {
  const status = response.status;
  if (status === 'failed') return failure('the response failed', response.error);
  if (status === 'incomplete') {
    const reason = isObject(response.incomplete_details) ? response.incomplete_details.reason : undefined;
    // Cut for any other (or no) reason: it is still a cut answer, and ends like one cut at the limit.
    return reason === 'content_filter' ? 'content_filter' : 'length';
  }
  if (status === 'completed') return calls > 0 ? 'tool_calls' : 'stop';
  // A server that leaves the status out: inferred from the calls (answer.ts).
  if (status === undefined || status === null) return undefined;
  return bad(`a response with status ${clip(String(status), BOUNDS.name)}`);
}

/** What the next call needs from this response: its id, beside the reasoning items `readOutput` kept. */
function withId(raw: RawAnswer, id: unknown): RawAnswer {
  if (typeof id !== 'string' || !id || id.length > MAX_RESPONSE_ID) return raw;
  return { ...raw, responses: { id, ...raw.responses } };
}

/** A whole response (unary, or the final one of a stream) as a `RawAnswer`. */
export function answerOf(response: Json, output: readonly unknown[]): RawAnswer {
  const raw = readOutput(output);
  const finishReason = finishOf(response, raw.calls.length);
  const usage = isObject(response.usage)
    ? tokens(response.usage.input_tokens, response.usage.output_tokens, response.usage.total_tokens)
    : undefined;
  return withId({ ...raw, ...(finishReason !== undefined && { finishReason }), usage }, response.id);
}
