/**
 * The public shapes of the Slack Web API stand-in: what it records, the faults it can play, and the
 * handle tests hold. Pure types.
 *
 * @module
 */

export interface SlackStandInOptions {
  /** The bot token the API accepts (`Authorization: Bearer …`). */
  token: string;
  /** The app's signing secret, with which the stand-in signs the interactions it sends. */
  signingSecret: string;
  /** How long a trigger_id may be used for views.open (Slack: 3 seconds). */
  triggerTtlMs?: number;
  host?: string;
}

/** One Web API call as received: the method, its arguments (JSON fields parsed) and the answer's status. */
export interface RecordedCall {
  method: string;
  args: Record<string, unknown>;
  /** HTTP status answered (200 also for `ok: false`). */
  status: number;
  /** Slack's error code when the answer was `ok: false`. */
  error?: string;
  at: number;
}

export interface StoredMessage {
  channel: string;
  ts: string;
  /** The current text and blocks (after any chat.update). */
  text: string;
  blocks: Record<string, unknown>[];
  postedAt: number;
  /** Every chat.update, oldest first. */
  updates: { text: string; blocks: Record<string, unknown>[]; at: number }[];
}

export interface OpenedView {
  id: string;
  triggerId: string;
  view: Record<string, unknown>;
  at: number;
}

/** A POST to a response_url the stand-in handed out with an interaction. */
export interface ResponsePost {
  url: string;
  body: Record<string, unknown>;
  at: number;
}

/** What the next call of a method gets instead of its normal answer. */
export type Fault =
  /** An HTTP error; with `retryAfter` (seconds) as the `Retry-After` header, e.g. a 429. */
  | { status: number; retryAfter?: number }
  /** `200 {"ok": false, "error": …}`, e.g. `channel_not_found`. */
  | { error: string };

/** An HTTP answer the gateway gave to an interaction. */
export interface InteractionAnswer {
  status: number;
  text: string;
  /** The body as JSON, when it is JSON. */
  json?: any;
  /** How long the gateway took to answer. */
  ms: number;
}

export interface SlackStandIn {
  /** The Web API base URL, e.g. `http://127.0.0.1:43210/api/` (`TILLER_SLACK_API_URL`). */
  url: string;
  calls: RecordedCall[];
  messages: StoredMessage[];
  views: OpenedView[];
  responses: ResponsePost[];
  /** The next calls of `method` get these answers, in order (then normal ones again). */
  fail(method: string, ...faults: Fault[]): void;
  /** Every call of `method` gets `fault` until {@link recover}. */
  outage(method: string, fault: Fault): void;
  recover(method: string): void;
  /** Resolves with `check()`'s value once it is truthy, re-checked whenever the stand-in records something. */
  waitFor<T>(check: () => T | undefined | null | false, what?: string, timeoutMs?: number): Promise<T>;
  /** Clicks a button of a posted message as `user`, the way Slack delivers it: signed, form-encoded. */
  click(gateway: string, message: StoredMessage, actionId: string, user: string): Promise<InteractionAnswer>;
  /** Submits an opened modal as `user` with `text` in its input. */
  submit(gateway: string, view: OpenedView, user: string, text: string): Promise<InteractionAnswer>;
  /** POSTs a raw body to the gateway's interactivity URL, signed (unless headers say otherwise). */
  send(gateway: string, body: string, headers?: Record<string, string>): Promise<InteractionAnswer>;
  close(): Promise<void>;
}
