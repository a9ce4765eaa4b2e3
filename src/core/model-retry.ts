/**
 * How long a model call may take: the defaults of `ModelRetrySpec` (docs/models.md), shared by the
 * workflow that schedules the call and the activity that makes it. Pure (no runtime imports).
 */

/** The whole call, every attempt and the backoff between them: the activity's schedule-to-close timeout. */
export const DEFAULT_MODEL_BUDGET = '10 minutes';

/** How long one attempt waits for the first chunk (or a whole unstreamed answer) before it gives up. */
export const DEFAULT_FIRST_TOKEN_MS = 120_000;

/**
 * The model activity's heartbeat timeout. It heartbeats only when the stream moves (and, before the
 * first chunk, while it waits, up to `firstToken`), so a stalled or stopped server is noticed this long
 * after its last chunk — well within a minute — and the attempt is retried.
 */
export const MODEL_HEARTBEAT_TIMEOUT_MS = 30_000;

/** One attempt at most (start-to-close); never longer than the budget (Temporal caps it there). */
export const MODEL_ATTEMPT_TIMEOUT = '5 minutes';

/** How often an attempt still waiting for its first chunk says it is alive. */
export const WAITING_HEARTBEAT_MS = 5_000;

/**
 * A 5xx other than 502/503/504 answered this many times in a row with the same message inside one
 * attempt (asked again after 1 s, then 2 s) is a server that cannot answer this request, not an outage:
 * the call fails at once, not retried, with the server's message.
 */
export const SAME_SERVER_ERROR_LIMIT = 3;
