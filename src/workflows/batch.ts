/**
 * The tool calls of one model response, run concurrently; their results go back in the model's order.
 * A batch knows when it is quiet — every call either finished or waiting for a human, nothing in
 * flight — which is when the turn may continue as new, carrying the batch (./carry.ts).
 */
import { BOUNDS } from '../core/bounds';
import type { ArgCheck } from '../core/spec';
import { PATCH_FEWER_CALLS_PER_RESPONSE } from './patches';
import type { WaitingCall } from './desk/approvals';
import { ToolCall } from './tool-call/tool-call';
import type { TurnScope } from './turn-scope';

/** One call of the batch as the next run gets it: finished (its result) or still waiting (its wait). */
export interface BatchCall {
  /** Unique within the turn (what state and decisions use). */
  id: string;
  name: string;
  raw: string;
  /** Its arguments checked by the model call (`ModelResponse.argChecks`); never carried: a carried call ended or waits. */
  check?: ArgCheck;
  result?: string;
  waiting?: WaitingCall;
}

const tooMany = (n: number, cap: number) =>
  `Error: ${n} tool calls in one response; the first ${cap} ran, this one did not. Ask for fewer at a time.`;

/** How many calls of a response of `n` run (see BOUNDS.callsPerResponse; the patch is checked only when it matters). */
function callsRun(n: number, scope: TurnScope): number {
  if (n <= BOUNDS.callsPerResponse) return n;
  return scope.recorder.version.has(PATCH_FEWER_CALLS_PER_RESPONSE)
    ? BOUNDS.callsPerResponse
    : BOUNDS.callsPerResponseBefore;
}

export class ToolBatch {
  /** Results as the calls finish, by position. */
  private readonly results: (string | undefined)[];
  /** All results, in the model's order, once every call has finished. */
  readonly done: Promise<string[]>;
  private settled = false;
  /**
   * Some call may wait for a human. When none can, the batch is quiet only once it has ended, so the
   * turn has nothing to watch but `done`.
   */
  readonly mayWaitForHuman: boolean;

  constructor(
    private readonly scope: TurnScope,
    private readonly calls: readonly BatchCall[],
  ) {
    this.results = calls.map((c) => c.result);
    let mayWait = false;
    // A batch resumed by a continued run has nothing left to refuse: every call ended or waits.
    const cap = calls.every((c) => c.result !== undefined || c.waiting) ? calls.length : callsRun(calls.length, scope);
    // Start every call (each decides synchronously whether it may wait for a human), then watch them.
    const running = calls.map((c, i): string | Promise<string> => {
      if (c.result !== undefined) return c.result;
      const call = new ToolCall(scope, c.id, c.name, c.raw, c.check);
      if (i >= cap && !c.waiting) return call.refuse(tooMany(calls.length, cap));
      const started = c.waiting ? call.resume(c.waiting) : call.run();
      mayWait ||= call.mayWaitForHuman;
      return started;
    });
    this.mayWaitForHuman = mayWait;
    if (!mayWait) {
      // Nothing to watch (`ended`, `quiet` and `carry` are for batches that may wait): the turn only
      // awaits `done`. See `inOrder` for why so few promises.
      this.done = inOrder(running);
      return;
    }
    running.forEach((r, i) => {
      if (typeof r === 'string') this.results[i] = r;
      // Observe each result as it comes (no commands here; the order of `done` is the model's).
      else r.then((result) => (this.results[i] = result), noop);
    });
    this.done = Promise.all(running);
    this.done.then(
      () => (this.settled = true),
      () => (this.settled = true),
    );
  }

  /** `done` has settled (resolved, or rejected by a cancellation). */
  ended(): boolean {
    return this.settled;
  }

  /** Every call finished or waiting for a human: no activity or child turn of the batch is in flight. */
  quiet(): boolean {
    return this.calls.every((c, i) => this.results[i] !== undefined || this.scope.desk.isWaiting(c.id));
  }

  /** The batch as the next run resumes it (only meaningful while `quiet()`). */
  carry(): BatchCall[] {
    return this.calls.map((c, i) => {
      const result = this.results[i];
      if (result !== undefined) return { id: c.id, name: c.name, raw: c.raw, result };
      const waiting = this.scope.desk.snapshot(c.id);
      return { id: c.id, name: c.name, raw: c.raw, ...(waiting && { waiting }) };
    });
  }
}

function noop(): void {}

/**
 * `Promise.all` of the results, without its aggregate promises for the common batch of one call. The
 * SDK captures a stack trace for every promise the workflow sandbox creates, and an evicted turn
 * replays every step's.
 */
function inOrder(running: (string | Promise<string>)[]): Promise<string[]> {
  const [only] = running;
  if (running.length === 1 && only !== undefined && typeof only !== 'string') return only.then((r) => [r]);
  return Promise.all(running);
}
