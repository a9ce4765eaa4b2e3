/**
 * The model activity's heartbeats: they carry the text so far, which subscribers read with
 * DescribeWorkflowExecution (no history events; src/core/live-text.ts).
 */
import type { Context } from '@temporalio/activity';
import { LIVE_TEXT_HEARTBEAT_MS, modelProgress } from '../../core/live-text';

/** Call `beat(text)` as often as you like; `stop()` when the call ends. */
export interface LiveHeartbeat {
  beat(content: string): void;
  stop(): void;
}

export function liveHeartbeat(ctx: Context, call: number): LiveHeartbeat {
  let latest = '';
  // The first heartbeat waits one throttle interval: a call that is over by then (a quick answer,
  // a tool call) costs the server no heartbeat at all, and its text reaches followers with its
  // MODEL_CALLED event as soon as it would have from a heartbeat.
  let live = false;
  // At most one heartbeat per interval reaches the SDK (the newest text, a trailing one after a
  // burst): the SDK converts and logs every heartbeat it is handed before it throttles them, and a
  // stream has a chunk every few ms — per chunk, that was a payload of up to 16 KB each time.
  let sentAt = -Infinity;
  let trailing: ReturnType<typeof setTimeout> | undefined;
  const send = () => {
    trailing = undefined;
    sentAt = performance.now();
    ctx.heartbeat(modelProgress(call, ctx.info.attempt, latest));
  };
  const beat = (content: string) => {
    latest = content;
    if (!live || trailing) return;
    const wait = sentAt + LIVE_TEXT_HEARTBEAT_MS - performance.now();
    if (wait <= 0) send();
    else trailing = setTimeout(send, wait);
  };
  const goLive = setTimeout(() => {
    live = true;
    beat(latest);
  }, LIVE_TEXT_HEARTBEAT_MS);
  // Non-streaming calls produce nothing to heartbeat on; keep the activity visibly alive.
  const keepAlive = setInterval(() => beat(latest), 5_000);
  return {
    beat,
    stop() {
      clearTimeout(goLive);
      clearTimeout(trailing);
      clearInterval(keepAlive);
    },
  };
}
