/**
 * The turn's approval desk: which tool calls wait for a human, who may decide them, how long they
 * wait (reminders, escalation, expiry), and how a decision is checked and recorded. The `decide`
 * update's validator and the `decide` signal share `check`, so both channels accept and reject the
 * same payloads.
 */
import { ApplicationFailure, condition } from '@temporalio/workflow';
import { msToNumber } from '@temporalio/common/lib/time';
import { describeApprovers, mayDecide } from '../core/approvers';
import { argsDigest } from '../core/digest';
import type { TurnEventBody } from '../core/events';
import { deniedResult, timedOutResult } from '../core/policy';
import { Decision, formatZodError, type RecordedDecision, type TurnState } from '../core/schemas';
import type { ApprovalPendingContext, GateSpec, ToolCallContext, ValidateArgsResponse } from '../core/spec';

export class DecisionRejected extends Error {
  override readonly name = 'DecisionRejected';
}

interface Waiter {
  call: ToolCallContext;
  gate: GateSpec;
  digest: string;
  approvers?: string[];
  /** Set while an accepted decision with edited arguments is being validated. */
  deciding: boolean;
  decision?: RecordedDecision;
}

export interface DeskDeps {
  state: TurnState;
  record(body: TurnEventBody): void;
  now(): string;
  /** Validates edited arguments against the tool's schema (an activity: the schema lives in the worker). */
  validateArgs(tool: string, args: unknown): Promise<ValidateArgsResponse>;
  /** Fires the `onApprovalPending` hooks (an activity), when the agent has any. */
  notifyPending?(ctx: ApprovalPendingContext): Promise<void>;
}

export type WaitOutcome = { kind: 'approved'; decision: RecordedDecision } | { kind: 'refused'; result: string };

interface Stage {
  approvers?: string[];
  timeout?: GateSpec['timeout'];
  remindEvery?: GateSpec['remindEvery'];
}

function stagesOf(gate: GateSpec): Stage[] {
  const first = { approvers: gate.approvers, timeout: gate.timeout, remindEvery: gate.remindEvery };
  if (typeof gate.onTimeout !== 'object') return [first];
  const { approvers, timeout, remindEvery } = gate.onTimeout.escalate;
  return [first, { approvers, timeout, remindEvery: remindEvery ?? gate.remindEvery }];
}

const isoIn = (ms: number) => new Date(Date.now() + ms).toISOString();

export class ApprovalDesk {
  private readonly waiters: Record<string, Waiter> = {};

  constructor(private readonly deps: DeskDeps) {}

  /** Parses and checks a decision against what is pending now; throws `DecisionRejected` with a clear message. */
  check(raw: unknown): Decision {
    const parsed = Decision.safeParse(raw);
    if (!parsed.success) throw new DecisionRejected(`malformed decision: ${formatZodError(parsed.error)}`);
    const decision = parsed.data;
    const waiter = this.waiters[decision.id];
    if (!waiter) {
      const known = this.deps.state.toolCalls.find((c) => c.id === decision.id);
      if (known) throw new DecisionRejected(`tool call ${decision.id} is not pending (status: ${known.status})`);
      const pending = this.deps.state.pendingApprovals.map((p) => p.id);
      throw new DecisionRejected(
        `unknown tool call id ${decision.id}; pending: ${pending.length ? pending.join(', ') : '(none)'}`,
      );
    }
    if (waiter.decision) throw new DecisionRejected(`tool call ${decision.id} was already decided`);
    if (waiter.deciding) throw new DecisionRejected(`a decision on tool call ${decision.id} is being applied`);
    if (decision.argsDigest !== undefined && decision.argsDigest !== waiter.digest) {
      throw new DecisionRejected(
        `argsDigest ${decision.argsDigest} does not match the pending call (${waiter.digest}): the decision was made on other arguments`,
      );
    }
    if (decision.args !== undefined && !decision.approved) {
      throw new DecisionRejected('edited args are only meaningful when approving');
    }
    if (decision.approved && (decision.scope === 'turn' || decision.scope === 'session') && waiter.gate.neverTrust) {
      throw new DecisionRejected(`${waiter.call.tool} can never be trusted beyond one call; decide with scope "once"`);
    }
    return decision;
  }

  /**
   * Applies a checked decision. Rule violations that are about *who* decides (approver not allowed)
   * and invalid edited arguments are recorded as DECISION_REJECTED — an audit trail — and then
   * rejected: the update fails with the reason, a signal is just recorded.
   */
  async apply(raw: unknown, via: 'update' | 'signal'): Promise<RecordedDecision> {
    const decision = this.check(raw);
    const waiter = this.waiters[decision.id]!;
    const reject = (reason: string): never => {
      this.deps.record({
        type: 'DECISION_REJECTED',
        via,
        reason,
        id: decision.id,
        ...(decision.approver !== undefined && { approver: decision.approver }),
      });
      throw ApplicationFailure.create({ type: 'DecisionRejected', message: reason, nonRetryable: true });
    };
    if (!mayDecide(waiter.approvers, decision.approver, decision.approverGroups)) {
      reject(
        `${decision.approver ?? 'an anonymous approver'} may not decide ${waiter.call.tool}; allowed: ${describeApprovers(waiter.approvers ?? [])}`,
      );
    }
    if (decision.args !== undefined) {
      waiter.deciding = true;
      let validation: ValidateArgsResponse;
      try {
        validation = await this.deps.validateArgs(waiter.call.tool, decision.args);
      } finally {
        waiter.deciding = false;
      }
      if (!validation.ok) reject(`edited args rejected: ${validation.error}`);
      if (waiter.decision || !this.waiters[decision.id]) reject(`tool call ${decision.id} was decided meanwhile`);
    }
    return this.record(waiter, decision, via);
  }

  private record(waiter: Waiter, decision: Decision, via: 'update' | 'signal'): RecordedDecision {
    const recorded: RecordedDecision = {
      id: decision.id,
      approved: decision.approved,
      scope: decision.scope ?? 'once',
      at: this.deps.now(),
      via,
      ...(decision.reason !== undefined && { reason: decision.reason }),
      ...(decision.approver !== undefined && { approver: decision.approver }),
      ...(decision.args !== undefined && { args: decision.args }),
    };
    waiter.decision = recorded;
    const { tool, args, toolCallId } = waiter.call;
    if (recorded.approved) {
      this.deps.record({ type: 'TOOL_APPROVED', toolCallId, tool, args, decision: recorded });
      if (recorded.scope === 'turn' || recorded.scope === 'session') {
        this.deps.record({
          type: 'TRUST_GRANTED',
          tool,
          scope: recorded.scope,
          ...(recorded.approver !== undefined && { approver: recorded.approver }),
        });
      }
    } else {
      this.deps.record({
        type: 'TOOL_DENIED',
        toolCallId,
        tool,
        args,
        result: deniedResult(recorded.reason),
        decision: recorded,
        ...(recorded.reason !== undefined && { reason: recorded.reason }),
      });
    }
    return recorded;
  }

  /**
   * Raises an approval request and waits durably: reminders on a timer, escalation to the next
   * stage's approvers at a deadline, expiry (`timed_out`) after the last stage.
   */
  async wait(call: ToolCallContext, gate: GateSpec, preview?: string): Promise<WaitOutcome> {
    const stages = stagesOf(gate);
    const first = stages[0]!;
    const waiter: Waiter = {
      call,
      gate,
      digest: argsDigest(call.tool, call.args),
      deciding: false,
      ...(first.approvers && { approvers: first.approvers }),
    };
    this.waiters[call.toolCallId] = waiter;
    const decided = () => waiter.decision !== undefined;
    const firstTimeout = first.timeout === undefined ? undefined : msToNumber(first.timeout);
    this.deps.record({
      type: 'APPROVAL_REQUESTED',
      toolCallId: call.toolCallId,
      tool: call.tool,
      args: call.args,
      argsDigest: waiter.digest,
      ...(firstTimeout !== undefined && { expiresAt: isoIn(firstTimeout) }),
      ...(first.approvers && { approvers: first.approvers }),
      ...(stages[1]?.approvers && { escalatesTo: stages[1].approvers }),
      ...(preview !== undefined && { preview }),
    });

    let reminder = 0;
    const notify = (escalated: boolean, expiresAt?: string) => {
      if (!this.deps.notifyPending) return;
      const ctx: ApprovalPendingContext = {
        call,
        reminder,
        escalated,
        ...(waiter.approvers && { approvers: waiter.approvers }),
        ...(expiresAt !== undefined && { expiresAt }),
        ...(preview !== undefined && { preview }),
      };
      // Notifications run beside the wait: a decision is never held up by a slow notifier.
      this.deps.notifyPending(ctx).catch(() => undefined);
    };

    try {
      for (let s = 0; s < stages.length; s++) {
        const stage = stages[s]!;
        const timeoutMs = stage.timeout === undefined ? undefined : msToNumber(stage.timeout);
        const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
        const expiresAt = deadline === undefined ? undefined : new Date(deadline).toISOString();
        if (s > 0) {
          waiter.approvers = stage.approvers ?? [];
          this.deps.record({
            type: 'APPROVAL_ESCALATED',
            toolCallId: call.toolCallId,
            tool: call.tool,
            approvers: waiter.approvers,
            ...(expiresAt !== undefined && { expiresAt }),
          });
        }
        notify(s > 0, expiresAt);
        const everyMs = stage.remindEvery === undefined ? undefined : msToNumber(stage.remindEvery);
        let nextReminder = everyMs === undefined ? undefined : Date.now() + everyMs;
        for (;;) {
          const remindFirst = nextReminder !== undefined && (deadline === undefined || nextReminder < deadline);
          const wakeAt = remindFirst ? nextReminder : deadline;
          if (wakeAt === undefined) {
            await condition(decided);
            break;
          }
          if (await condition(decided, Math.max(1, wakeAt - Date.now()))) break;
          if (!remindFirst) break; // this stage's deadline
          reminder++;
          this.deps.record({ type: 'APPROVAL_REMINDED', toolCallId: call.toolCallId, tool: call.tool, reminder });
          notify(s > 0, expiresAt);
          nextReminder = nextReminder! + everyMs!;
        }
        if (decided()) break;
      }
    } finally {
      delete this.waiters[call.toolCallId];
    }

    if (!waiter.decision) {
      const result =
        stages.length > 1
          ? timedOutResult(call.tool, undefined, waiter.approvers ?? [])
          : timedOutResult(call.tool, first.timeout);
      this.deps.record({ type: 'APPROVAL_TIMED_OUT', toolCallId: call.toolCallId, tool: call.tool, result });
      return { kind: 'refused', result };
    }
    return waiter.decision.approved
      ? { kind: 'approved', decision: waiter.decision }
      : { kind: 'refused', result: deniedResult(waiter.decision.reason) };
  }
}

/** A signal payload's id and approver, when it has them, for the DECISION_REJECTED event. */
export function describePayload(raw: unknown): { id?: string; approver?: string } {
  if (!raw || typeof raw !== 'object') return {};
  const { id, approver } = raw as { id?: unknown; approver?: unknown };
  return {
    ...(typeof id === 'string' && { id }),
    ...(typeof approver === 'string' && { approver }),
  };
}
