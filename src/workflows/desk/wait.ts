/**
 * How a call waits at the approval desk: the request is raised, then the wait goes durably through the
 * gate's stages — reminders on a timer, escalation to the next stage's approvers at a deadline, expiry
 * (`timed_out`) after the last stage — with the `onApprovalPending` / `onApprovalResolved` hooks beside it.
 */
import { condition, workflowInfo } from '@temporalio/workflow';
import { msToNumber } from '@temporalio/common/lib/time';
import { keepReceipts } from '../../core/bounds';
import { argsDigest } from '../../core/digest';
import { deniedResult, timedOutResult } from '../../core/policy';
import type { ApprovalPendingContext, GateSpec, ToolCallContext } from '../../core/spec';
import { PATCH_EMPTY_APPROVERS_MEAN_NOBODY, PATCH_SALTED_ARGS_DIGEST } from '../patches';
import type { DeskState, WaitingCall, WaitOutcome, Waiter } from './types';

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

/** Puts the call in wait at the desk and records APPROVAL_REQUESTED: who may decide, until when. */
export function raiseRequest(
  { waiters, preparing, deps }: DeskState,
  call: ToolCallContext,
  gate: GateSpec,
  preview?: string,
): Waiter {
  const stages = stagesOf(gate);
  const first = stages[0]!;
  // Each patch marks new turns; a wait raised before it (replayed without the marker) keeps the old rule.
  // Salted per turn: by its workflow's first run, and by its id too inside a session (whose turns share a run).
  const run = workflowInfo().firstExecutionRunId;
  const perTurn = call.turnId === call.workflowId ? run : `${run}/${call.turnId}`;
  const salt = deps.recorder.version.has(PATCH_SALTED_ARGS_DIGEST) ? perTurn : undefined;
  const waiter: Waiter = {
    call,
    gate,
    digest: argsDigest(call.tool, call.args, salt),
    emptyMeansNobody:
      stages.some((s) => s.approvers?.length === 0) && deps.recorder.version.has(PATCH_EMPTY_APPROVERS_MEAN_NOBODY),
    deciding: false,
    notifications: [],
    notifying: 0,
    stage: 0,
    reminder: 0,
    receipts: [],
    ...(first.approvers && { approvers: first.approvers }),
    ...(preview !== undefined && { preview }),
  };
  waiters[call.toolCallId] = waiter;
  preparing.delete(call.toolCallId);
  const firstTimeout = first.timeout === undefined ? undefined : msToNumber(first.timeout);
  deps.recorder.record({
    type: 'APPROVAL_REQUESTED',
    toolCallId: call.toolCallId,
    tool: call.tool,
    args: call.args,
    argsDigest: waiter.digest,
    ...(firstTimeout !== undefined && { expiresAt: new Date(deps.recorder.clock.now() + firstTimeout).toISOString() }),
    ...(first.approvers && { approvers: first.approvers }),
    ...(stages[1]?.approvers && { escalatesTo: stages[1].approvers }),
    ...(preview !== undefined && { preview }),
  });
  return waiter;
}

/** A carried wait as this run keeps it: receipts bounded again, like anything a run is started with. */
export function carriedWaiter(waiting: WaitingCall): Waiter {
  return {
    ...waiting,
    receipts: keepReceipts(undefined, waiting.receipts),
    deciding: false,
    notifications: [],
    notifying: 0,
  };
}

/**
 * Waits until the call is decided or its last stage expires (`resumed`: a wait carried from the turn's
 * previous run goes on where it was), then takes it off the desk and says how it ended.
 */
export async function waitFor({ waiters, deps }: DeskState, waiter: Waiter, resumed: boolean): Promise<WaitOutcome> {
  const { call } = waiter;
  const stages = stagesOf(waiter.gate);
  const decided = () => waiter.decision !== undefined;
  const notify = (escalated: boolean, expiresAt?: string) => {
    if (!deps.notifyPending) return;
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
      deps.notifyPending(ctx).then(
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
        waiter.deadline = timeoutMs === undefined ? undefined : deps.recorder.clock.now() + timeoutMs;
        const expiresAt = waiter.deadline === undefined ? undefined : new Date(waiter.deadline).toISOString();
        if (s > 0) {
          waiter.approvers = stage.approvers ?? [];
          deps.recorder.record({
            type: 'APPROVAL_ESCALATED',
            toolCallId: call.toolCallId,
            tool: call.tool,
            approvers: waiter.approvers,
            ...(expiresAt !== undefined && { expiresAt }),
          });
        }
        notify(s > 0, expiresAt);
        waiter.nextReminder = everyMs === undefined ? undefined : deps.recorder.clock.now() + everyMs;
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
        if (await condition(decided, Math.max(1, wakeAt - deps.recorder.clock.now()))) break;
        if (!remindFirst) break; // this stage's deadline
        waiter.reminder++;
        deps.recorder.record({
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
    delete waiters[call.toolCallId];
  }

  const { decision } = waiter;
  const outcome = !decision ? 'timed_out' : decision.approved ? 'approved' : 'denied';
  // Receipts carried from earlier runs are in `waiter.receipts` already; this run's come as they settle.
  const settled = Promise.all(waiter.notifications).then(() => waiter.receipts ?? []);
  // Beside the flow too: the call goes on at once, the hooks hear of it when its notifications are done.
  deps.notifyResolved?.({ call, outcome, ...(decision && { decision }) }, settled).catch(() => undefined);
  if (!waiter.decision) {
    const result =
      stages.length > 1
        ? timedOutResult(call.tool, undefined, waiter.approvers ?? [])
        : timedOutResult(call.tool, stages[0]!.timeout);
    deps.recorder.record({ type: 'APPROVAL_TIMED_OUT', toolCallId: call.toolCallId, tool: call.tool, result });
    return { type: 'refused', result };
  }
  return waiter.decision.approved
    ? { type: 'approved', decision: waiter.decision }
    : { type: 'refused', result: deniedResult(waiter.decision.reason) };
}
