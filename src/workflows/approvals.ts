/**
 * The turn's approval desk: which tool calls wait for a human, who may decide them, how long they
 * wait (reminders, escalation, expiry), and how a decision is checked and recorded. The `decide`
 * update's validator and the `decide` signal share `check`, so both channels accept and reject the
 * same payloads.
 */
import { condition, patched } from '@temporalio/workflow';
import { msToNumber } from '@temporalio/common/lib/time';
import { describeApprovers, mayDecide } from '../core/approvers';
import { argsDigest } from '../core/digest';
import { deniedResult, timedOutResult } from '../core/policy';
import { Decision, formatZodError, type RecordedDecision } from '../core/schemas';
import type {
  AgentSpec,
  ApprovalPendingContext,
  ApprovalReceipt,
  ApprovalResolvedContext,
  GateSpec,
  ToolCallContext,
  ValidateArgsResponse,
} from '../core/spec';
import { subAgentInput } from '../core/subagents';
import { acts, hookOptions } from './activities';
import { PATCH_APPROVAL_RESOLVED_HOOK } from './patches';
import type { TurnRecorder } from './recorder';

/** What the desk makes of a decision: accepted (as checked, or as recorded), or rejected and why. */
export type DeskVerdict<T> = { type: 'accepted'; decision: T } | { type: 'rejected'; reason: string };

/** How a waiting call ends: approved (run it), or refused with the text the model reads instead. */
export type WaitOutcome = { type: 'approved'; decision: RecordedDecision } | { type: 'refused'; result: string };

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
  recorder: TurnRecorder;
  /** Validates edited arguments against the tool's schema (an activity: the schema lives in the worker). */
  validateArgs(tool: string, args: unknown): Promise<ValidateArgsResponse>;
  /** Fires the `onApprovalPending` hooks (an activity), when the agent has any; returns their receipts. */
  notifyPending?(ctx: ApprovalPendingContext): Promise<ApprovalReceipt[]>;
  /** Fires the `onApprovalResolved` hooks (an activity) once `receipts` (the call's notifications) have settled. */
  notifyResolved?(ctx: Omit<ApprovalResolvedContext, 'receipts'>, receipts: Promise<ApprovalReceipt[]>): Promise<void>;
}

/** Receipts of one call passed to `onApprovalResolved`: the newest this many. */
const MAX_RECEIPTS = 20;

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

  /** Parses and checks a decision against what is pending now (the update's validator and the handlers). */
  check(raw: unknown): DeskVerdict<Decision> {
    const parsed = Decision.safeParse(raw);
    if (!parsed.success) return rejected(`malformed decision: ${formatZodError(parsed.error)}`);
    const decision = parsed.data;
    const waiter = this.waiters[decision.id];
    if (!waiter) {
      const { state } = this.deps.recorder;
      const known = state.toolCalls.find((c) => c.id === decision.id);
      if (known) return rejected(`tool call ${decision.id} is not pending (status: ${known.status})`);
      const pending = state.pendingApprovals.map((p) => p.id);
      return rejected(
        `unknown tool call id ${decision.id}; pending: ${pending.length ? pending.join(', ') : '(none)'}`,
      );
    }
    if (waiter.decision) return rejected(`tool call ${decision.id} was already decided`);
    if (waiter.deciding) return rejected(`a decision on tool call ${decision.id} is being applied`);
    if (decision.argsDigest !== undefined && decision.argsDigest !== waiter.digest) {
      return rejected(
        `argsDigest ${decision.argsDigest} does not match the pending call (${waiter.digest}): the decision was made on other arguments`,
      );
    }
    if (decision.args !== undefined && !decision.approved) {
      return rejected('edited args are only meaningful when approving');
    }
    if (decision.approved && (decision.scope === 'turn' || decision.scope === 'session') && waiter.gate.neverTrust) {
      return rejected(`${waiter.call.tool} can never be trusted beyond one call; decide with scope "once"`);
    }
    return { type: 'accepted', decision };
  }

  /**
   * Applies a decision from either channel. Every rejection is recorded as DECISION_REJECTED (an audit
   * trail of who tried what), except an update's that its validator refused: those never reach history.
   */
  async apply(raw: unknown, via: 'update' | 'signal'): Promise<DeskVerdict<RecordedDecision>> {
    const checked = this.check(raw);
    if (checked.type === 'rejected') return this.reject(via, checked.reason, describePayload(raw));
    const decision = checked.decision;
    const waiter = this.waiters[decision.id]!;
    const who = { id: decision.id, ...(decision.approver !== undefined && { approver: decision.approver }) };
    if (!mayDecide(waiter.approvers, decision.approver, decision.approverGroups)) {
      const allowed = describeApprovers(waiter.approvers ?? []);
      return this.reject(
        via,
        `${decision.approver ?? 'an anonymous approver'} may not decide ${waiter.call.tool}; allowed: ${allowed}`,
        who,
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
      if (!validation.ok) return this.reject(via, `edited args rejected: ${validation.error}`, who);
      if (waiter.decision || !this.waiters[decision.id]) {
        return this.reject(via, `tool call ${decision.id} was decided meanwhile`, who);
      }
    }
    return { type: 'accepted', decision: this.record(waiter, decision, via) };
  }

  private reject(
    via: 'update' | 'signal',
    reason: string,
    who: { id?: string; approver?: string },
  ): DeskVerdict<RecordedDecision> {
    this.deps.recorder.record({ type: 'DECISION_REJECTED', via, reason, ...who });
    return rejected(reason);
  }

  private record(waiter: Waiter, decision: Decision, via: 'update' | 'signal'): RecordedDecision {
    const recorded: RecordedDecision = {
      id: decision.id,
      approved: decision.approved,
      scope: decision.scope ?? 'once',
      at: this.deps.recorder.now(),
      via,
      ...(decision.reason !== undefined && { reason: decision.reason }),
      ...(decision.approver !== undefined && { approver: decision.approver }),
      ...(decision.args !== undefined && { args: decision.args }),
    };
    waiter.decision = recorded;
    const { tool, args, toolCallId } = waiter.call;
    if (recorded.approved) {
      this.deps.recorder.record({ type: 'TOOL_APPROVED', toolCallId, tool, args, decision: recorded });
      if (recorded.scope === 'turn' || recorded.scope === 'session') {
        this.deps.recorder.record({
          type: 'TRUST_GRANTED',
          tool,
          scope: recorded.scope,
          ...(recorded.approver !== undefined && { approver: recorded.approver }),
        });
      }
    } else {
      this.deps.recorder.record({
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
    this.deps.recorder.record({
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
    const receipts: ApprovalReceipt[] = [];
    const notifications: Promise<void>[] = [];
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
      notifications.push(
        this.deps.notifyPending(ctx).then(
          (r) => void receipts.push(...r),
          () => undefined,
        ),
      );
    };

    try {
      for (let s = 0; s < stages.length; s++) {
        const stage = stages[s]!;
        const timeoutMs = stage.timeout === undefined ? undefined : msToNumber(stage.timeout);
        const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
        const expiresAt = deadline === undefined ? undefined : new Date(deadline).toISOString();
        if (s > 0) {
          waiter.approvers = stage.approvers ?? [];
          this.deps.recorder.record({
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
          this.deps.recorder.record({
            type: 'APPROVAL_REMINDED',
            toolCallId: call.toolCallId,
            tool: call.tool,
            reminder,
          });
          notify(s > 0, expiresAt);
          nextReminder = nextReminder! + everyMs!;
        }
        if (decided()) break;
      }
    } finally {
      delete this.waiters[call.toolCallId];
    }

    const { decision } = waiter;
    const outcome = !decision ? 'timed_out' : decision.approved ? 'approved' : 'denied';
    const settled = Promise.all(notifications).then(() => receipts.slice(-MAX_RECEIPTS));
    // Beside the flow too: the call goes on at once, the hooks hear of it when its notifications are done.
    this.deps.notifyResolved?.({ call, outcome, ...(decision && { decision }) }, settled).catch(() => undefined);
    if (!waiter.decision) {
      const result =
        stages.length > 1
          ? timedOutResult(call.tool, undefined, waiter.approvers ?? [])
          : timedOutResult(call.tool, first.timeout);
      this.deps.recorder.record({ type: 'APPROVAL_TIMED_OUT', toolCallId: call.toolCallId, tool: call.tool, result });
      return { type: 'refused', result };
    }
    return waiter.decision.approved
      ? { type: 'approved', decision: waiter.decision }
      : { type: 'refused', result: deniedResult(waiter.decision.reason) };
  }
}

function rejected(reason: string): { type: 'rejected'; reason: string } {
  return { type: 'rejected', reason };
}

/** A payload's id and approver, when it has them, for the DECISION_REJECTED event. */
function describePayload(raw: unknown): { id?: string; approver?: string } {
  if (!raw || typeof raw !== 'object') return {};
  const { id, approver } = raw as { id?: unknown; approver?: unknown };
  return {
    ...(typeof id === 'string' && { id }),
    ...(typeof approver === 'string' && { approver }),
  };
}

/**
 * The activities behind a turn's desk: edited arguments are checked against the tool's schema in the
 * worker (a sub-agent's against Tiller's own, right here), and `onApprovalPending` /
 * `onApprovalResolved` hooks fire when the agent has any. `agent` is the turn's spec once it is known.
 */
export function deskActivities(
  recorder: TurnRecorder,
  agent: () => AgentSpec | undefined,
): Pick<DeskDeps, 'validateArgs' | 'notifyPending' | 'notifyResolved'> {
  return {
    validateArgs(tool, args) {
      if (!agent()?.tools.some((t) => t.name === tool && t.subAgent)) {
        return acts.validateToolArgs.executeWithOptions({ ...hookOptions, summary: `validate edited ${tool} args` }, [
          { tool, args },
        ]);
      }
      const checked = subAgentInput(tool, args);
      return Promise.resolve(checked.type === 'valid' ? { ok: true } : { ok: false, error: checked.error });
    },
    async notifyPending(ctx) {
      if (!agent()?.hooks.onApprovalPending) return [];
      const summary = `notify ${ctx.call.tool} pending${ctx.reminder ? ` (reminder ${ctx.reminder})` : ''}`;
      const done = await acts.notifyApprovalPending.executeWithOptions({ ...hookOptions, summary }, [ctx]);
      recorder.hookFailures(done.hookFailures, ctx.call.toolCallId);
      return done.receipts ?? [];
    },
    async notifyResolved(ctx, receipts) {
      if (!agent()?.hooks.onApprovalResolved) return;
      const kept = await receipts;
      // A new command: checked where it is scheduled, so histories without the marker replay without it.
      if (!patched(PATCH_APPROVAL_RESOLVED_HOOK)) return;
      const summary = `notify ${ctx.call.tool} ${ctx.outcome.replace('_', ' ')}`;
      const done = await acts.notifyApprovalResolved.executeWithOptions({ ...hookOptions, summary }, [
        { ...ctx, receipts: kept },
      ]);
      recorder.hookFailures(done.hookFailures, ctx.call.toolCallId);
    },
  };
}
