/**
 * The Responses API wire (OpenAI's `POST /v1/responses`): the request from a prompt, and the response —
 * streamed as typed events, or whole — read as the same `RawAnswer` Chat Completions gives (./chat.ts),
 * so a turn's events, state and approvals do not depend on which API answered.
 *
 * Everything the server sends is untrusted: wrong types, missing fields and huge values end in a defined
 * outcome (an answer, or `bad()`: retried), never in a crash.
 */
import { ApplicationFailure } from '@temporalio/activity';
import OpenAI from 'openai';
import type {
  ResponseCreateParamsNonStreaming,
  ResponseCreateParamsStreaming,
} from 'openai/resources/responses/responses';
import { BOUNDS, clip, deeperThan } from '../../core/bounds';
import { FailureType } from '../../core/failures';
import { REASONING_CHARS, tokens, type RawAnswer, type RawCall } from './answer';
import { bad } from './errors';
import type { Prompt } from './prompt';
import { isObject, responsesParams, str, type Json } from './responses-request';

export { responsesParams } from './responses-request';

export interface RespondOptions {
  signal: AbortSignal;
  /** Called with the answer's text so far on every streamed event (the worker throttles heartbeats). */
  beat: (text: string) => void;
  /**
   * The provider keeps responses: continue from the last one with `previous_response_id`, sending only
   * what is new. False: nothing is kept (`store: false`); every call sends the full input, reasoning
   * items with their `encrypted_content`.
   */
  store: boolean;
}

/** Output items read per response: more is not a model's answer (a call per item, far past what a turn runs). */
const MAX_OUTPUT_ITEMS = BOUNDS.callsPerResponse * 4;
/** A response id longer than this is not one Tiller keeps (OpenAI's are about 50 characters). */
const MAX_RESPONSE_ID = 256;

/** A 400/404 saying the previous response is gone (expired, deleted, or never kept). */
function previousResponseGone(err: unknown): boolean {
  if (!(err instanceof OpenAI.APIError) || (err.status !== 400 && err.status !== 404)) return false;
  const { code, param } = err as { code?: unknown; param?: unknown };
  return (
    code === 'previous_response_not_found' ||
    param === 'previous_response_id' ||
    /previous[ _]response/i.test(err.message)
  );
}

/**
 * One Responses call: streamed when the agent streams, else whole. With a kept previous response, a
 * server that no longer has it (400/404 about it) is asked again at once with the full input.
 */
export async function respond(client: OpenAI, req: Prompt, opts: RespondOptions): Promise<RawAnswer> {
  const once = (continueFrom: boolean) => {
    const params = responsesParams(req, opts.store, continueFrom);
    return req.stream ? streamed(client, params, opts) : unary(client, params, opts.signal);
  };
  try {
    return await once(true);
  } catch (err) {
    if (!opts.store || !previousResponseGone(err) || opts.signal.aborted) throw err;
    return once(false);
  }
}

// ---------------------------------------------------------------------------------------------------
// The response
// ---------------------------------------------------------------------------------------------------

/** Error codes that say the request itself is wrong: asking again will not help. */
const NOT_RETRIED = new Set(['context_length_exceeded', 'invalid_prompt', 'invalid_request_error']);

/** A failed response (`response.failed`) or an `error` event: a Temporal failure, retried unless the code says not. */
function failure(what: string, error: unknown): never {
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
function answerOf(response: Json, output: readonly unknown[]): RawAnswer {
  const raw = readOutput(output);
  const finishReason = finishOf(response, raw.calls.length);
  const usage = isObject(response.usage)
    ? tokens(response.usage.input_tokens, response.usage.output_tokens, response.usage.total_tokens)
    : undefined;
  return withId({ ...raw, ...(finishReason !== undefined && { finishReason }), usage }, response.id);
}

async function unary(client: OpenAI, params: Json, signal: AbortSignal): Promise<RawAnswer> {
  let response: unknown;
  try {
    response = await client.responses.create({ ...params, stream: false } as ResponseCreateParamsNonStreaming, {
      signal,
    });
  } catch (err) {
    // The SDK reads `output` itself (its `output_text`) and throws a TypeError on one that is not a list.
    if (err instanceof TypeError) bad(`a response the client could not read (${clip(err.message, 200)})`);
    throw err;
  }
  if (!isObject(response)) return bad('the response is not an object');
  if (!Array.isArray(response.output)) {
    // A 200 whose body is an error (some proxies): its words, not just "no output".
    if (isObject(response.error)) failure('the response is an error', response.error);
    return bad('the response has no output list');
  }
  return answerOf(response, response.output);
}

/** One output item as the stream builds it: the item as last sent, and what its deltas added since. */
interface Building {
  item: Json;
  /** Set by `response.output_item.done`: the item is whole, its deltas are not needed. */
  done: boolean;
  text: string;
  refusal: string;
  arguments: string;
  summary: string;
}

/** The streamed events read into output items, bounded as they grow. */
class StreamReader {
  readonly items: Building[] = [];
  /** The answer's text so far, for heartbeats. */
  text = '';
  /** The response as the final event gave it. */
  response: Json = {};
  /** The response's id as `response.created` gave it (the final event's wins). */
  createdId: unknown;
  /** The event that ended the stream. */
  ended?: 'completed' | 'incomplete';
  private grown = 0;

  /** The item an event is about: by `output_index` (OpenAI), else by its id (`item_id`, or the item's own). */
  private slot(event: Json, type: string, id: unknown = event.item_id): Building {
    const index = event.output_index;
    if (index !== undefined && index !== null) {
      if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= MAX_OUTPUT_ITEMS)
        bad('an event with a bad output_index');
      return (this.items[index as number] ??= building({ type }));
    }
    const found = typeof id === 'string' ? this.items.find((b) => b?.item.id === id) : undefined;
    if (found) return found;
    if (this.items.length >= MAX_OUTPUT_ITEMS) bad(`more than ${MAX_OUTPUT_ITEMS} output items`);
    return (this.items[this.items.length] = building({ type, ...(typeof id === 'string' && { id }) }));
  }

  /** A delta's text, counted against the size a response may have. */
  private grow(delta: unknown, what: string): string {
    if (typeof delta !== 'string') return bad(`a ${what} delta that is not a string`);
    this.grown += delta.length;
    if (this.grown > BOUNDS.modelResponseBytes) bad(`streamed ${what} past the size a turn records`);
    return delta;
  }

  /** Takes one event; true when it ended the response. */
  take(event: unknown): boolean {
    if (!isObject(event)) return bad('a stream event that is not an object');
    switch (event.type) {
      case 'response.created':
        if (isObject(event.response)) this.createdId = event.response.id;
        return false;
      case 'response.output_item.added':
      case 'response.output_item.done': {
        if (!isObject(event.item)) return bad(`${event.type} without an item`);
        const slot = this.slot(event, str(event.item.type) ?? 'message', event.item.id);
        slot.item = event.item;
        slot.done ||= event.type === 'response.output_item.done';
        return false;
      }
      case 'response.output_text.delta': {
        const delta = this.grow(event.delta, 'text');
        this.slot(event, 'message').text += delta;
        this.text += delta;
        return false;
      }
      case 'response.refusal.delta': {
        const slot = this.slot(event, 'message');
        const delta = this.grow(event.delta, 'refusal');
        if (slot.refusal.length < BOUNDS.text) slot.refusal += delta;
        return false;
      }
      case 'response.function_call_arguments.delta':
        this.slot(event, 'function_call').arguments += this.grow(event.delta, 'arguments');
        return false;
      case 'response.function_call_arguments.done': {
        // The whole arguments: they replace the deltas (a server may send only this).
        const slot = this.slot(event, 'function_call');
        if (typeof event.arguments === 'string') {
          this.grow(event.arguments, 'arguments');
          slot.arguments = event.arguments;
        }
        if (typeof event.name === 'string' && event.name) slot.item = { ...slot.item, name: event.name };
        return false;
      }
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta': {
        const slot = this.slot(event, 'reasoning');
        if (typeof event.delta === 'string' && slot.summary.length < REASONING_CHARS) slot.summary += event.delta;
        return false;
      }
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        if (!isObject(event.response)) return bad(`${event.type} without a response`);
        this.response = event.response;
        // A failed response throws here (finishOf); the others end the stream.
        if (event.type === 'response.failed') return failure('the response failed', event.response.error);
        this.ended = event.type === 'response.completed' ? 'completed' : 'incomplete';
        return true;
      case 'error':
        return failure('the stream reported an error', event);
      default:
        // Events Tiller does not need (content parts, text done, annotations, hosted tools, …) or does not know.
        return false;
    }
  }

  /** The output items: each whole where the stream said it was done, else built from its deltas. */
  output(): Json[] {
    return this.items.filter(Boolean).map((b) => {
      if (b.done) return b.item;
      if (b.item.type === 'function_call') return { ...b.item, arguments: b.arguments || b.item.arguments };
      if (b.item.type === 'reasoning')
        return b.summary ? { ...b.item, summary: [{ type: 'summary_text', text: b.summary }] } : b.item;
      if (b.item.type === 'message' && (b.text || b.refusal))
        return {
          ...b.item,
          content: [
            ...(b.text ? [{ type: 'output_text', text: b.text }] : []),
            ...(b.refusal ? [{ type: 'refusal', refusal: b.refusal }] : []),
          ],
        };
      return b.item;
    });
  }
}

const building = (item: Json): Building => ({ item, done: false, text: '', refusal: '', arguments: '', summary: '' });

async function streamed(client: OpenAI, params: Json, opts: RespondOptions): Promise<RawAnswer> {
  const stream = await client.responses.create({ ...params, stream: true } as ResponseCreateParamsStreaming, {
    signal: opts.signal,
  });
  const reader = new StreamReader();
  try {
    for await (const event of stream as AsyncIterable<unknown>) {
      const ended = reader.take(event);
      // Every event proves the call alive; the worker throttles what reaches the server.
      opts.beat(reader.text);
      if (ended) break;
    }
  } catch (err) {
    // An event that is not JSON: the SDK's parse error, as an unusable response (retried).
    if (err instanceof SyntaxError) bad(`a stream event that is not JSON (${clip(err.message, 200)})`);
    // An event with an `error` field (an older error event's shape): the SDK throws it without a status.
    if (err instanceof OpenAI.APIError && err.status === undefined)
      failure('the stream reported an error', isObject(err.error) ? err.error : { message: err.message });
    throw err;
  }
  // A stream that ends without saying how it ended was cut (or the server failed after answering 200):
  // never an answer. Retried.
  if (!reader.ended) {
    const got = reader.items.some(Boolean) ? 'after part of an answer' : 'with nothing in it';
    bad(`the stream ended without response.completed or response.incomplete, ${got}`);
  }
  const built = reader.output();
  // Items are read from the events; a server that streamed none may still give them in the final response.
  const final = reader.response;
  const output = built.length === 0 && Array.isArray(final.output) ? final.output : built;
  // The final event's own status is what the stream said, whatever the response object claims.
  return answerOf({ ...final, status: reader.ended, id: final.id ?? reader.createdId }, output);
}
