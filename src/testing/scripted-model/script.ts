/**
 * The shapes of a script: what the scripted model answers to each chat-completions request. Pure
 * types, no Node imports.
 *
 * @module
 */

/** Token usage reported for a scripted response. `total_tokens` defaults to the sum of the other two. */
export interface ScriptUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
}

/** A tool (function) call the scripted assistant makes. */
export interface ScriptToolCall {
  /** Tool call id. Defaults to `call_<n>`, where `n` is a counter unique per server. */
  id?: string;
  /** Function name. */
  name: string;
  /** Function arguments: a raw string is sent verbatim, an object is `JSON.stringify`-ed. */
  arguments: string | Record<string, unknown>;
}

/**
 * One scripted answer to one chat-completions request.
 *
 * - `{ content?, toolCalls?, usage?, delayMs? }`: a normal assistant response (`delayMs` waits before
 *   responding; `usage` overrides the server's default usage).
 * - `{ error: { status, message?, type?, headers? } }`: an HTTP error with an OpenAI-style JSON body
 *   `{ error: { message, type, code: null } }` and the given extra response headers.
 * - `{ garbage, status? }`: a response (status 200 unless given) whose body is exactly this raw text.
 *   Non-streaming requests get it labelled `application/json`, so the client's JSON parse fails.
 *   Streaming requests get it labelled `text/event-stream`; note that text with no `data:` line is
 *   simply an empty event stream to an SSE parser, so use e.g. `'data: {oops\n\n'` to make a
 *   streaming client fail to parse.
 * - `{ reset: true }`: the connection is destroyed without any response (a network reset; the
 *   client sees a connection error).
 */
export type ScriptStep =
  | NormalStep
  | { error: { status: number; message?: string; type?: string; headers?: Record<string, string> } }
  | { garbage: string; status?: number }
  | { reset: true };

/** A normal answer; see {@link ScriptStep}. */
export interface NormalStep {
  content?: string;
  toolCalls?: ScriptToolCall[];
  usage?: ScriptUsage;
  delayMs?: number;
  /** Streaming only: wait this long before each content chunk (a model that types). */
  chunkDelayMs?: number;
  /** Streaming only: drop the connection after this many content chunks (a stream that breaks). */
  breakAfterChunks?: number;
  /**
   * Answer with the request's settings as JSON text: every body field except `messages`, `tools`,
   * `stream` and `stream_options` (e.g. `{"model":"x","temperature":0.2}`), in place of `content`.
   */
  echo?: boolean;
  /**
   * A structured answer: sent as its JSON text in place of `content` (what a model asked for a
   * `response_format` `json_schema` returns). The request's `response_format` is in `requests[i].body`.
   */
  json?: unknown;
  /**
   * Responses API only (Chat Completions ignores it): a reasoning item before the answer, with this
   * summary text and, when the request includes `reasoning.encrypted_content`, an opaque `encrypted_content`.
   */
  reasoning?: string;
  /**
   * Responses API only (Chat Completions ignores it): the response is cut, `status: incomplete` with
   * this `incomplete_details.reason` (the items the step gives are still sent, as far as they got).
   */
  incomplete?: 'max_output_tokens' | 'content_filter';
}

/**
 * A script computed per request. `index` is the 0-based number of the model request on this server
 * (counting every request with a valid JSON body, over the server's lifetime, on either API; a
 * Responses request the server refuses before the script — an unknown `previous_response_id` — is
 * not counted). On the Responses API, `body` is the request body with `messages` added: the whole
 * conversation as Chat Completions messages (instructions first, as the system message), so a script
 * answers the same turn on either API.
 */
export type ScriptFn = (req: { body: any; index: number }) => ScriptStep;
