/**
 * A streamed Responses API call: the typed events read into output items, bounded as they grow, and the
 * answer built from them (./responses-output.ts) once the stream says how the response ended.
 */
import OpenAI from 'openai';
import type { ResponseCreateParamsStreaming } from 'openai/resources/responses/responses';
import { BOUNDS, clip } from '../../core/bounds';
import { REASONING_CHARS, type RawAnswer } from './answer';
import { bad } from './errors';
import { answerOf, failure, MAX_OUTPUT_ITEMS } from './responses-output';
import { isObject, str, type Json } from './responses-request';

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

/** One streamed call; `beat` gets the answer's text so far on every event (the worker throttles heartbeats). */
export async function streamed(
  client: OpenAI,
  params: Json,
  opts: { signal: AbortSignal; beat: (text: string) => void },
): Promise<RawAnswer> {
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
