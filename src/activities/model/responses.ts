/**
 * The Responses API wire (OpenAI's `POST /v1/responses`): one call, streamed (./responses-stream.ts) or
 * whole, from the request ./responses-request.ts builds to the same `RawAnswer` Chat Completions gives
 * (./chat.ts), read by ./responses-output.ts — so a turn's events, state and approvals do not depend on
 * which API answered.
 *
 * Everything the server sends is untrusted: wrong types, missing fields and huge values end in a defined
 * outcome (an answer, or `bad()`: retried), never in a crash.
 */
import OpenAI from 'openai';
import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import { clip } from '../../core/bounds';
import type { RawAnswer } from './answer';
import { bad } from './errors';
import type { Prompt } from './prompt';
import { answerOf, failure } from './responses-output';
import { isObject, responsesParams, type Json } from './responses-request';
import { streamed } from './responses-stream';

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
