/**
 * The turn's approval desk: which tool calls wait for a human, who may decide them, how long they
 * wait (reminders, escalation, expiry), and how a decision is checked and recorded. The `decide`
 * update's validator and the `decide` signal share `check`, so both channels accept and reject the
 * same payloads.
 */
import { condition, patched, workflowInfo } from '@temporalio/workflow';
import { msToNumber } from '@temporalio/common/lib/time';
import { describeApprovers, mayDecide } from '../core/approvers';
import { keepReceipts } from '../core/bounds';
import { argsDigest } from '../core/digest';
import { deniedResult, timedOutResult } from '../core/policy';
import { refusedPayload } from '../core/failures';
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
import { callerOf, installCallerInterceptor } from './caller';
import {
  PATCH_APPROVAL_RESOLVED_HOOK,
  PATCH_EMPTY_APPROVERS_MEAN_NOBODY,
  PATCH_SALTED_ARGS_DIGEST,
  PATCH_VERIFIED_APPROVER,
} from './patches';
import type { TurnRecorder } from './recorder';

/** What the desk makes of a decision: accepted (as checked, or as recorded), or rejected and why. */
export type DeskVerdict<T> = { type: 'accepted'; decision: T } | { type: 'rejected'; reason: string };

/** How a waiting call ends: approved (run it), or refused with the text the model reads instead. */
export type WaitOutcome = { type: 'approved'; decision: RecordedDecision } | { type: 'refused'; result: string };

/**
 * A call waiting for a human, and how far its wait has come: enough to resume it in the turn's next
 * run when it continues as new (plain JSON: the deadlines are epoch milliseconds of workflow time).
 */
export interface WaitingCall {
  call: ToolCallContext;
  gate: GateSpec;
  digest: string;
  preview?: string | undefined;
  /** Who may decide now (the current stage's approvers). */
  approvers?: string[] | undefined;
  /** An empty `approvers` list allows nobody (false only for waits raised before that rule). */
  emptyMeansNobody: boolean;
  stage: number;
  deadline?: number | undefined;
  nextReminder?: number | undefined;
  reminder: number;
  /**
   * What the `onApprovalPending` hooks returned for this call so far (the newest
   * `BOUNDS.receiptsPerCall`), for `onApprovalResolved`. Absent in waits carried before receipts.
   */
  receipts?: ApprovalReceipt[] | undefined;
}

interface Waiter extends WaitingCall {
  /** Set while an accepted decision with edited arguments is being validated. */
  deciding: boolean;
  decision?: RecordedDecision;
  /** This run's `onApprovalPending` activities for the call, settled or not (never carried). */
  notifications: Promise<void>[];
  /** How many of them are still running. */
  notifying: number;
}

export interface DeskDeps {
  recorder: TurnRecorder;
  /** The agent's limit on a call's arguments (JSON characters): edited ones must fit too. */
  maxArgsChars?(): number | undefined;
  /** Validates edited arguments against the tool's schema (an activity: the schema lives in the worker). */
  validateArgs(tool: string, args: unknown): Promise<ValidateArgsResponse>;
  /** Fires the `onApprovalPending` hooks (an activity), when the agent has any; returns their receipts. */
  notifyPending?(ctx: ApprovalPendingContext): Promise<ApprovalReceipt[]>;
  /** Fires the `onApprovalResolved` hooks (an activity) once `receipts` (the call's notifications) have settled. */
  notifyResolved?(ctx: Omit<ApprovalResolvedContext, 'receipts'>, receipts: Promise<ApprovalReceipt[]>): Promise<void>;
  /**
   * Whether receipts matter (the agent has `onApprovalResolved` hooks): then a call is not quiet — the
   * turn does not continue as new — while one of its notifications runs, so its receipt is carried.
   */
  keepsReceipts?(): boolean;
}

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
  // No prototype: a decision id such as "constructor" or "__proto__" must not find anything here.
  private readonly waiters: Record<string, Waiter> = Object.create(null);

  constructor(private readonly deps: DeskDeps) {
    // Before any handler is set: decisions then arrive with their verified caller (./caller.ts).
    installCallerInterceptor();
  }

  /**
   * Parses and checks a decision against what is pending now (the update's validator and the handlers).
   * A decision that came through the secured cluster carries its verified caller (`tillerApprover`):
   * it is decided as that approver, with that caller's groups, and refused if its body names another
   * (`verified` false: a replay of a decision applied before that rule, which kept the body's names).
   */
  check(raw: unknown, verified = true): DeskVerdict<Decision> {
    const refused = refusedPayload(raw);
    if (refused !== undefined) return rejected(`decision refused: ${refused}`);
    const parsed = Decision.safeParse(raw);
    if (!parsed.success) return rejected(`malformed decision: ${formatZodError(parsed.error)}`);
    let decision = parsed.data;
    const caller = verified ? callerOf(raw) : undefined;
    if (caller?.type === 'invalid') return rejected(`decision refused: ${caller.reason}`);
    if (caller) {
      if (decision.approver !== undefined && decision.approver !== caller.approver)
        return rejected(`${caller.approver} may not decide as ${decision.approver}`);
      const foreign = decision.approverGroups?.find((g) => !caller.groups.includes(g));
      if (foreign !== undefined) return rejected(`${caller.approver} is not in group ${foreign}`);
      const { approverGroups: _typed, ...rest } = decision;
      decision = { ...rest, approver: caller.approver, ...(caller.groups.length && { approverGroups: caller.groups }) };
    }
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
    const maxArgs = this.deps.maxArgsChars?.();
    if (decision.args !== undefined && maxArgs !== undefined && JSON.stringify(decision.args).length > maxArgs) {
      return rejected(`edited args are longer than the ${maxArgs} characters this agent accepts`);
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
    // Only a decision with a verified caller reaches the patch: histories without one replay unmarked.
    const checked = this.check(raw, callerOf(raw) === undefined || patched(PATCH_VERIFIED_APPROVER));
    if (checked.type === 'rejected') return this.reject(via, checked.reason, describePayload(raw));
    const decision = checked.decision;
    const waiter = this.waiters[decision.id]!;
    const who = { id: decision.id, ...(decision.approver !== undefined && { approver: decision.approver }) };
    const rule = waiter.approvers?.length === 0 && !waiter.emptyMeansNobody ? undefined : waiter.approvers;
    if (!mayDecide(rule, decision.approver, decision.approverGroups)) {
      const allowed = describeApprovers(waiter.approvers ?? []);
      return this.reject(
        via,
        `${decision.approver ?? 'an anonymous approver'} may not decide ${waiter.call.tool}; allowed: ${allowed}`,
        who,
      );
    }
    const { startedBy } = this.deps.recorder.state;
    if (
      decision.approved &&
      startedBy !== undefined &&
      decision.approver === startedBy &&
      !waiter.gate.allowSelfApproval
    ) {
      return this.reject(
        via,
        `${startedBy} may not decide ${waiter.call.tool}: ${startedBy} started this turn, and the gate does not allow self-approval`,
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

  /** Records a signal this deployment does not take, bounded like any rejection. */
  refuseSignal(raw: unknown, reason: string): void {
    this.reject('signal', reason, describePayload(raw));
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
    // Each patch marks new turns; a wait raised before it (replayed without the marker) keeps the old rule.
    const salt = patched(PATCH_SALTED_ARGS_DIGEST) ? workflowInfo().firstExecutionRunId : undefined;
    const waiter: Waiter = {
      call,
      gate,
      digest: argsDigest(call.tool, call.args, salt),
      emptyMeansNobody: stages.some((s) => s.approvers?.length === 0) && patched(PATCH_EMPTY_APPROVERS_MEAN_NOBODY),
      deciding: false,
      notifications: [],
      notifying: 0,
      stage: 0,
      reminder: 0,
      receipts: [],
      ...(first.approvers && { approvers: first.approvers }),
      ...(preview !== undefined && { preview }),
    };
    this.waiters[call.toolCallId] = waiter;
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
    return this.waitFor(waiter, false);
  }

  /**
   * Takes the waits carried from the turn's previous run before the decision handlers are set: a
   * decision delivered with the run's first task (Temporal hands it to the handler as it is set) then
   * finds its call pending instead of being refused. `resume` waits on them.
   */
  adopt(waits: readonly WaitingCall[]): void {
    for (const waiting of waits) this.waiters[waiting.call.toolCallId] = carriedWaiter(waiting);
  }

  /** Resumes a wait carried from the turn's previous run: the same deadlines, no new request. */
  resume(waiting: WaitingCall): Promise<WaitOutcome> {
    const id = waiting.call.toolCallId;
    const waiter = (this.waiters[id] ??= carriedWaiter(waiting));
    return this.waitFor(waiter, true);
  }

  /**
   * Whether this call waits for a human right now, and nothing of it is in flight: no decision on it
   * is being applied, and — when receipts matter — none of its notifications runs.
   */
  isWaiting(toolCallId: string): boolean {
    const waiter = this.waiters[toolCallId];
    if (waiter === undefined || waiter.deciding || waiter.decision !== undefined) return false;
    return waiter.notifying === 0 || !this.deps.keepsReceipts?.();
  }

  /** Where the call's wait stands, to carry into the next run. */
  snapshot(toolCallId: string): WaitingCall | undefined {
    const waiter = this.waiters[toolCallId];
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

  private async waitFor(waiter: Waiter, resumed: boolean): Promise<WaitOutcome> {
    const { call } = waiter;
    const stages = stagesOf(waiter.gate);
    const decided = () => waiter.decision !== undefined;
    const notify = (escalated: boolean, expiresAt?: string) => {
      if (!this.deps.notifyPending) return;
      const ctx: ApprovalPendingContext = {
        call,
        argsDigest: waiter.digest,
        reminder: waiter.reminder,
        escalated,
        ...(waiter.approvers && { approvers: waiter.approvers }),
        ...(expiresAt !== undefined && { expiresAt }),
        ...(waiter.preview !== undefined && { preview: waiter.preview }),
      };
      // Notifications run beside the wait: a decision is never held up by a slow notifier.
      waiter.notifying++;
      waiter.notifications.push(
        this.deps.notifyPending(ctx).then(
          (r) => {
            waiter.notifying--;
            waiter.receipts = keepReceipts(waiter.receipts, r);
          },
          () => void waiter.notifying--,
        ),
      );
    };

    try {
      for (let s = waiter.stage; s < stages.length; s++) {
        const stage = stages[s]!;
        const everyMs = stage.remindEvery === undefined ? undefined : msToNumber(stage.remindEvery);
        // A resumed wait goes on where it was; otherwise the stage starts now.
        if (!resumed || s !== waiter.stage) {
          waiter.stage = s;
          const timeoutMs = stage.timeout === undefined ? undefined : msToNumber(stage.timeout);
          waiter.deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
          const expiresAt = waiter.deadline === undefined ? undefined : new Date(waiter.deadline).toISOString();
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
          waiter.nextReminder = everyMs === undefined ? undefined : Date.now() + everyMs;
        }
        const expiresAt = waiter.deadline === undefined ? undefined : new Date(waiter.deadline).toISOString();
        for (;;) {
          const { nextReminder, deadline } = waiter;
          const remindFirst = nextReminder !== undefined && (deadline === undefined || nextReminder < deadline);
          const wakeAt = remindFirst ? nextReminder : deadline;
          if (wakeAt === undefined) {
            await condition(decided);
            break;
          }
          if (await condition(decided, Math.max(1, wakeAt - Date.now()))) break;
          if (!remindFirst) break; // this stage's deadline
          waiter.reminder++;
          this.deps.recorder.record({
            type: 'APPROVAL_REMINDED',
            toolCallId: call.toolCallId,
            tool: call.tool,
            reminder: waiter.reminder,
          });
          notify(s > 0, expiresAt);
          waiter.nextReminder = nextReminder! + everyMs!;
        }
        if (decided()) break;
      }
    } finally {
      delete this.waiters[call.toolCallId];
    }

    const { decision } = waiter;
    const outcome = !decision ? 'timed_out' : decision.approved ? 'approved' : 'denied';
    // Receipts carried from earlier runs are in `waiter.receipts` already; this run's come as they settle.
    const settled = Promise.all(waiter.notifications).then(() => waiter.receipts ?? []);
    // Beside the flow too: the call goes on at once, the hooks hear of it when its notifications are done.
    this.deps.notifyResolved?.({ call, outcome, ...(decision && { decision }) }, settled).catch(() => undefined);
    if (!waiter.decision) {
      const result =
        stages.length > 1
          ? timedOutResult(call.tool, undefined, waiter.approvers ?? [])
          : timedOutResult(call.tool, stages[0]!.timeout);
      this.deps.recorder.record({ type: 'APPROVAL_TIMED_OUT', toolCallId: call.toolCallId, tool: call.tool, result });
      return { type: 'refused', result };
    }
    return waiter.decision.approved
      ? { type: 'approved', decision: waiter.decision }
      : { type: 'refused', result: deniedResult(waiter.decision.reason) };
  }
}

/** A carried wait as this run keeps it: receipts bounded again, like anything a run is started with. */
function carriedWaiter(waiting: WaitingCall): Waiter {
  return {
    ...waiting,
    receipts: keepReceipts(undefined, waiting.receipts),
    deciding: false,
    notifications: [],
    notifying: 0,
  };
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
): Pick<DeskDeps, 'validateArgs' | 'notifyPending' | 'notifyResolved' | 'maxArgsChars' | 'keepsReceipts'> {
  return {
    maxArgsChars: () => agent()?.limits?.maxToolArgChars,
    validateArgs(tool, args) {
      if (!agent()?.tools.some((t) => t.name === tool && t.subAgent)) {
        return acts.validateToolArgs.executeWithOptions({ ...hookOptions, summary: `validate edited ${tool} args` }, [
          { tool, args },
        ]);
      }
      const checked = subAgentInput(tool, args);
      return Promise.resolve(checked.type === 'valid' ? { ok: true } : { ok: false, error: checked.error });
    },
    keepsReceipts: () => agent()?.hooks.onApprovalResolved === true,
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
