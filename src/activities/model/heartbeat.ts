/**
 * The model activity's heartbeats, which say that the call is making progress — and only then. They
 * carry the text so far (subscribers read it with DescribeWorkflowExecution, no history events;
 * src/core/live-text.ts) and how many chunks arrived.
 *
 * The rule: an attempt heartbeats on every chunk the server sends (throttled); before the first chunk
 * it heartbeats every few seconds while it waits, but only up to `firstToken` (a server reading a long
 * prompt sends nothing until it has, and that may take a while on a CPU); then it gives up. After the
 * first chunk, silence is a stall: no chunk, no heartbeat, and Temporal's heartbeat timeout (30 s) ends
 * the attempt and retries it. A heartbeat on a timer whatever the stream does would hide a hung server
 * until the attempt's 5-minute timeout. The attempt also aborts its own request a little after that, so
 * a hung connection is not kept open.
 */
import { ApplicationFailure, type Context } from '@temporalio/activity';
import { FailureType } from '../../core/failures';
import { LIVE_TEXT_HEARTBEAT_MS, modelProgress } from '../../core/live-text';
import { DEFAULT_FIRST_TOKEN_MS, MODEL_HEARTBEAT_TIMEOUT_MS, WAITING_HEARTBEAT_MS } from '../../core/model-retry';

/** Call `beat(text)` on every chunk; `stop()` when the call ends. */
export interface LiveHeartbeat {
  beat(content: string): void;
  stop(): void;
  /** Aborts when the attempt gives up: no first chunk within `firstToken`, or a stream that stalled. */
  signal: AbortSignal;
  /** The failure to throw once `signal` aborted (retryable: `ModelUnavailable`). */
  failure(): ApplicationFailure | undefined;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

export function liveHeartbeat(ctx: Context, call: number, firstTokenMs = DEFAULT_FIRST_TOKEN_MS): LiveHeartbeat {
  const started = performance.now();
  const aborter = new AbortController();
  let failure: ApplicationFailure | undefined;
  const giveUp = (message: string) => {
    failure = ApplicationFailure.create({ type: FailureType.ModelUnavailable, message });
    aborter.abort(failure);
  };
  let latest = '';
  let chunks = 0;
  const progress = () => ({ ...modelProgress(call, ctx.info.attempt, latest), chunks });
  // The first heartbeat after the first chunk waits one throttle interval: a call that is over by then
  // (a quick answer, a tool call) costs the server no heartbeat at all.
  let live = false;
  // At most one heartbeat per interval reaches the SDK (the newest text, a trailing one after a burst):
  // the SDK converts and logs every heartbeat it is handed before it throttles them.
  let sentAt = -Infinity;
  let trailing: ReturnType<typeof setTimeout> | undefined;
  const send = () => {
    trailing = undefined;
    sentAt = performance.now();
    ctx.heartbeat(progress());
  };
  const push = () => {
    if (!live || trailing) return;
    const wait = sentAt + LIVE_TEXT_HEARTBEAT_MS - performance.now();
    if (wait <= 0) send();
    else trailing = setTimeout(send, wait);
  };

  // Waiting for the first chunk: alive, up to the bound.
  const waiting = setInterval(
    () => ctx.heartbeat({ ...progress(), waitingMs: Math.round(performance.now() - started) }),
    WAITING_HEARTBEAT_MS,
  );
  const firstToken = setTimeout(() => {
    clearInterval(waiting);
    giveUp(`no answer from the model within ${seconds(firstTokenMs)} (modelRetry.firstToken); the attempt is retried`);
  }, firstTokenMs);
  // Streaming: a chunk is the only heartbeat; past the heartbeat timeout the server has ended this attempt.
  const stallMs = (ctx.info.heartbeatTimeoutMs || MODEL_HEARTBEAT_TIMEOUT_MS) + 5_000;
  let stall: ReturnType<typeof setTimeout> | undefined;
  let goLive: ReturnType<typeof setTimeout> | undefined;

  const beat = (content: string) => {
    latest = content;
    chunks += 1;
    if (chunks === 1) {
      clearInterval(waiting);
      clearTimeout(firstToken);
      goLive = setTimeout(() => {
        live = true;
        push();
      }, LIVE_TEXT_HEARTBEAT_MS);
    }
    clearTimeout(stall);
    stall = setTimeout(
      () => giveUp(`the model's stream stalled: no chunk for ${seconds(stallMs)} after ${chunks} chunks`),
      stallMs,
    );
    push();
  };
  return {
    beat,
    signal: aborter.signal,
    failure: () => failure,
    stop() {
      clearInterval(waiting);
      clearTimeout(firstToken);
      clearTimeout(stall);
      clearTimeout(goLive);
      clearTimeout(trailing);
    },
  };
}
