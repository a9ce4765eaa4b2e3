/**
 * The turn's approval desk: which tool calls wait for a human, who may decide them, how long they
 * wait, and how a decision is checked and recorded. The desk keeps the calls in wait; its parts do the
 * work — `./check.ts` takes decisions (the `decide` update's validator and the `decide` signal
 * share `check`, so both channels accept and reject the same payloads), `./wait.ts` waits with
 * reminders, escalation and expiry, `./activities.ts` are the activities behind it.
 */
import type { Decision, RecordedDecision } from '../../core/schemas';
import type { GateSpec, ToolCallContext } from '../../core/spec';
import { installCallerInterceptor } from '../caller';
import { applyDecision, checkDecision, refuseSignal } from './check';
import type { DeskDeps, DeskState, DeskVerdict, WaitingCall, WaitOutcome } from './types';
import { carriedWaiter, raiseRequest, waitFor } from './wait';

export type { DeskDeps, DeskVerdict, WaitingCall, WaitOutcome } from './types';

export class ApprovalDesk {
  private readonly desk: DeskState;

  constructor(deps: DeskDeps) {
    // No prototype: a decision id such as "constructor" or "__proto__" must not find anything here.
    this.desk = { waiters: Object.create(null) as DeskState['waiters'], preparing: new Set(), deps };
    // Before any handler is set: decisions then arrive with their verified caller (./caller.ts).
    installCallerInterceptor();
  }

  /**
   * Parses and checks a decision against what is pending now (the update's validator and the handlers).
   * `verified` false: a replay of a decision applied before verified callers (see `checkDecision`).
   */
  check(raw: unknown, verified = true): DeskVerdict<Decision> {
    return checkDecision(this.desk, raw, verified, true);
  }

  /** Applies a decision from either channel; every rejection the handler sees is recorded. */
  apply(raw: unknown, via: 'update' | 'signal'): Promise<DeskVerdict<RecordedDecision>> {
    return applyDecision(this.desk, raw, via);
  }

  /**
   * Marks a gated call whose approval hook or preview is about to run: a decision for it is then taken
   * and held until it waits. Synchronous (no await): the calls' command order is unchanged. The mark
   * comes off when the wait is raised, or with `unprepare` when the call ends without waiting.
   */
  prepare(toolCallId: string): void {
    this.desk.preparing.add(toolCallId);
  }

  /** Takes the mark off a call that did not wait (its hook or preview settled it); a held decision is refused. */
  unprepare(toolCallId: string): void {
    this.desk.preparing.delete(toolCallId);
  }

  /** Records a signal this deployment does not take, bounded like any rejection. */
  refuseSignal(raw: unknown, reason: string): void {
    refuseSignal(this.desk.deps, raw, reason);
  }

  /**
   * Raises an approval request and waits durably: reminders on a timer, escalation to the next
   * stage's approvers at a deadline, expiry (`timed_out`) after the last stage.
   */
  // Async as before the split: the same microtask steps, so concurrent calls interleave as they did.
  async wait(call: ToolCallContext, gate: GateSpec, preview?: string): Promise<WaitOutcome> {
    return waitFor(this.desk, raiseRequest(this.desk, call, gate, preview), false);
  }

  /**
   * Takes the waits carried from the turn's previous run before the decision handlers are set: a
   * decision delivered with the run's first task (Temporal hands it to the handler as it is set) then
   * finds its call pending instead of being refused. `resume` waits on them.
   */
  adopt(waits: readonly WaitingCall[]): void {
    for (const waiting of waits) this.desk.waiters[waiting.call.toolCallId] = carriedWaiter(waiting);
  }

  /** Resumes a wait carried from the turn's previous run: the same deadlines, no new request. */
  resume(waiting: WaitingCall): Promise<WaitOutcome> {
    const id = waiting.call.toolCallId;
    const waiter = (this.desk.waiters[id] ??= carriedWaiter(waiting));
    return waitFor(this.desk, waiter, true);
  }

  /**
   * Whether this call waits for a human right now, and nothing of it is in flight: no decision on it
   * is being applied, and — when receipts matter — none of its notifications runs.
   */
  isWaiting(toolCallId: string): boolean {
    const waiter = this.desk.waiters[toolCallId];
    if (waiter === undefined || waiter.deciding || waiter.decision !== undefined) return false;
    return waiter.notifying === 0 || !this.desk.deps.keepsReceipts?.();
  }

  /** Where the call's wait stands, to carry into the next run. */
  snapshot(toolCallId: string): WaitingCall | undefined {
    const waiter = this.desk.waiters[toolCallId];
    if (!waiter) return undefined;
    const {
      deciding: _deciding,
      decision: _decision,
      notifications: _notifications,
      notifying: _notifying,
      ...waiting
    } = waiter;
    return waiting;
  }
}
