/**
 * Live model text: what a streaming model call has produced so far, and the pure tracker that turns
 * successive snapshots of it into `delta` / `discard` events for subscribers.
 *
 * The snapshot travels as the model activity's **heartbeat details**. The server keeps only the
 * newest details of a running activity (in its mutable state, not in history) and returns them from
 * `DescribeWorkflowExecution`, so following a model's output costs no history events at all, goes
 * through the payload codec like every other payload, and any client that can describe a workflow
 * (the `temporal` CLI included) can read it. The worker sends heartbeats at most once per throttle
 * interval (`createWorker` sets 100 ms), which is the batching.
 */
import { z } from 'zod';

/** Characters of the newest text a heartbeat carries; older text is dropped and counted in `offset`. */
export const LIVE_TEXT_WINDOW = 16 * 1024;

/** How often a worker sends a streaming call's heartbeat at most (`maxHeartbeatThrottleInterval`). */
export const LIVE_TEXT_HEARTBEAT_MS = 100;
/** How often followers look at a streaming call. */
export const LIVE_TEXT_POLL_MS = 50;

export const ModelProgress = z.object({
  /** The model call's number in the turn (1-based), as in `MODEL_CALLED.call`. */
  call: z.number().int().positive(),
  /** The activity attempt that produced the text: a retry starts again from nothing. */
  attempt: z.number().int().positive(),
  /** Characters produced before `text` (dropped from the window). */
  offset: z.number().int().nonnegative(),
  text: z.string(),
  /** Chunks the attempt has received so far (absent from heartbeats before progress was reported). */
  chunks: z.number().int().nonnegative().optional(),
  /** Before the first chunk: how long the attempt has been waiting for it, in ms. */
  waitingMs: z.number().nonnegative().optional(),
});
export type ModelProgress = z.infer<typeof ModelProgress>;

/** The snapshot a model activity heartbeats after receiving `content` in total. */
export function modelProgress(call: number, attempt: number, content: string): ModelProgress {
  const offset = Math.max(0, content.length - LIVE_TEXT_WINDOW);
  return { call, attempt, offset, text: offset ? content.slice(offset) : content };
}

export type LiveTextEvent =
  /** Text the model produced, to append to what this call has shown so far. `skipped` chars were never seen. */
  | { type: 'delta'; call: number; attempt: number; text: string; skipped?: number }
  /** The attempt failed and is retried: drop what it showed; the retry streams from the start. */
  | { type: 'discard'; call: number; attempt: number };

/** A look at the turn's running model activity: its current attempt and its newest heartbeat, if any. */
export interface ModelActivitySnapshot {
  attempt: number;
  progress?: ModelProgress;
}

/**
 * Folds snapshots (one per poll) into live text events. Feed it every poll — `undefined` when no model
 * call runs — and `complete(call, text)` when the call's result is known, to flush the tail the last
 * heartbeat did not carry.
 */
export class LiveTextTracker {
  private call = 0;
  private attempt = 0;
  /** Characters of the current call/attempt sent to subscribers … */
  private sent = 0;
  /** … the newest of which (up to the window) are kept to check the final text against. */
  private shown = '';
  private done = false;

  observe(snapshot: ModelActivitySnapshot | undefined): LiveTextEvent[] {
    const p = snapshot?.progress;
    if (!snapshot || !p) return [];
    if (p.call < this.call || (p.call === this.call && this.done)) return [];
    const out: LiveTextEvent[] = [];
    if (p.call > this.call) this.start(p.call, p.attempt);
    // A failed attempt's details stay visible until the retry heartbeats: they are stale.
    const attempt = Math.max(snapshot.attempt, p.attempt);
    if (attempt > this.attempt) {
      if (this.sent > 0) out.push({ type: 'discard', call: this.call, attempt: this.attempt });
      this.attempt = attempt;
      this.sent = 0;
      this.shown = '';
    }
    if (p.attempt < this.attempt) return out;
    const total = p.offset + p.text.length;
    if (total > this.sent) {
      const skipped = Math.max(0, p.offset - this.sent);
      const text = p.text.slice(Math.max(0, this.sent - p.offset));
      out.push({ type: 'delta', call: this.call, attempt: this.attempt, text, ...(skipped && { skipped }) });
      if (skipped) this.shown = '';
      this.show(text, total);
    }
    return out;
  }

  /** The call ended with `text` as its content: sends what the subscriber has not seen yet. */
  complete(call: number, text: string | null | undefined): LiveTextEvent[] {
    if (call < this.call || (call === this.call && this.done)) return [];
    if (call > this.call) this.start(call, 1);
    this.done = true;
    // Histories from before MODEL_CALLED carried the text: nothing to check the shown text against.
    if (text === undefined) return [];
    const final = text ?? '';
    const out: LiveTextEvent[] = [];
    // The call may have succeeded on a retry this tracker never saw: what was shown is then not a
    // prefix of the result, so it is discarded and the result sent whole.
    const tailStart = this.sent - this.shown.length;
    if (this.sent > 0 && final.slice(tailStart, this.sent) !== this.shown) {
      out.push({ type: 'discard', call, attempt: this.attempt });
      this.sent = 0;
      this.shown = '';
    }
    if (final.length > this.sent) {
      out.push({ type: 'delta', call, attempt: this.attempt, text: final.slice(this.sent) });
      this.show(final.slice(this.sent), final.length);
    }
    return out;
  }

  private start(call: number, attempt: number): void {
    this.call = call;
    this.attempt = attempt;
    this.sent = 0;
    this.shown = '';
    this.done = false;
  }

  private show(text: string, total: number): void {
    this.shown = (this.shown + text).slice(-LIVE_TEXT_WINDOW);
    this.sent = total;
  }
}
