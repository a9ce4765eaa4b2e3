/**
 * The public shapes of a scripted model server: its options, the running server and the requests it
 * records. Pure types, no Node imports.
 *
 * @module
 */
import type { ScriptFn, ScriptStep, ScriptUsage } from './script';

/** A request the server received: Chat Completions or Responses API. */
export interface RecordedRequest {
  /** Which API was asked: `POST /v1/chat/completions` (`chat`) or `POST /v1/responses` (`responses`). */
  api: 'chat' | 'responses';
  /** The parsed JSON request body. */
  body: any;
  /** Whether the request asked for a streamed response (`body.stream === true`). */
  stream: boolean;
  /** The request headers, as Node parsed them (lower-cased names). */
  headers: Record<string, string | string[] | undefined>;
  /** `Date.now()` when the request body had been received. */
  at: number;
}

/** Options for {@link startScriptedModel}. */
export interface ScriptedModelOptions {
  /** Port to listen on; default 0 (an ephemeral port). */
  port?: number;
  /** Host to listen on; default `127.0.0.1`. */
  host?: string;
  /** The initial script; default an empty array (every request gets the "script exhausted" 500). */
  script?: ScriptStep[] | ScriptFn;
  /** Usage for steps without their own; default `{ prompt_tokens: 10, completion_tokens: 5 }`. */
  defaultUsage?: ScriptUsage;
  /** Characters per streamed content / tool-argument delta; default 8. */
  chunkSize?: number;
  /**
   * Repeat the (cumulative) usage on every streamed chunk, as some providers do; default false.
   * The final usage-only chunk is still sent when the request sets `stream_options.include_usage`.
   */
  usageInEveryChunk?: boolean;
  /**
   * A context window, in tokens counted as four characters of the request's `messages` and `tools` (JSON):
   * a Chat Completions request past it is refused like OpenAI does (400, `context_length_exceeded`), and
   * one within it reports that count as `prompt_tokens` (unless its step sets `usage`). Default: none.
   */
  contextLimit?: number;
  /**
   * How a request past `contextLimit` is refused: like OpenAI (default) or like llama-server (400
   * `{ error: { code: 400, type: 'exceed_context_size_error', message: 'the request exceeds the available
   * context size…', n_prompt_tokens, n_ctx } }`).
   */
  contextRefusal?: 'openai' | 'llama';
}

/** A running scripted model server. */
export interface ScriptedModel {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:43210/v1`; pass it as the OpenAI `baseURL`. */
  url: string;
  /**
   * Every model request received (either API; see `api`), in order, including ones answered with scripted errors
   * or "script exhausted". (Requests with an invalid JSON body are answered 400 and not recorded.)
   */
  requests: RecordedRequest[];
  /** Every streamed content chunk, when it was written (for measuring how fast text reaches followers). */
  contentChunks: { at: number; text: string }[];
  /** Append steps to the current array script. Throws if the current script is a function. */
  push(...steps: ScriptStep[]): void;
  /** Replace the script. An array script starts again from its first step. */
  setScript(script: ScriptStep[] | ScriptFn): void;
  /** Steps left in an array script (0 for function scripts). */
  remaining(): number;
  /**
   * Forget every kept Responses API response (as a provider does when they expire): a later
   * `previous_response_id` naming one gets the 404 `previous_response_not_found`.
   */
  forgetResponses(): void;
  /** Stop listening, abort in-flight responses and close every socket. */
  close(): Promise<void>;
}
