/**
 * How a tool call is approved: by a trust grant, by a human at the approval desk (after its arguments
 * are checked and its preview made), or by the agent's approval hook, which may ask a human in turn.
 * Each function keeps the awaits of the recorded histories: calls of one response run concurrently,
 * so their command order depends on them (a replay test checks it).
 */
import { isCancellation } from '@temporalio/workflow';
import { describeFailure } from '../../core/failures';
import { deniedResult } from '../../core/policy';
import type { RecordedDecision, TrustGrant } from '../../core/schemas';
import type { ApprovalOutcome, ArgCheck, GateSpec, ToolCallContext, ToolSpec } from '../../core/spec';
import { acts, hookOptions, localActs, localHookOptions } from '../activities';
import type { WaitOutcome } from '../desk/approvals';
import { PATCH_VALIDATE_BEFORE_APPROVAL } from '../patches';
import type { TurnScope } from '../turn-scope';

/** What approving a call needs from it (a `ToolCall`). */
export interface ApprovingCall {
  readonly turn: TurnScope;
  /** Unique within the turn. */
  readonly id: string;
  readonly tool: string;
  /** The arguments as state and events show them. */
  readonly args: unknown;
  readonly rawArgs: string;
  readonly toolSpec: ToolSpec | undefined;
  readonly isSubAgent: boolean;
  /** Its arguments as its model call checked them, if it did (PATCH_AT_COST). */
  readonly check?: ArgCheck;
  context(): Omit<ToolCallContext, 'args'>;
  /** Records the call as failed; returns what the model reads. */
  fail(error: string, more?: { modelSees?: string }): string;
  /** A human's answer: `undefined` = run (with their edited arguments, if any), else the refusal. */
  decided(outcome: WaitOutcome): string | undefined;
}

type Checked<T> = { type: 'valid'; value: T } | { type: 'invalid'; error: string };

export function approvedByTrust(call: ApprovingCall, grant: TrustGrant): void {
  const { recorder } = call.turn;
  const decision: RecordedDecision = {
    id: call.id,
    approved: true,
    scope: grant.scope,
    at: recorder.now(),
    via: 'trust',
    ...(grant.approver !== undefined && { approver: grant.approver }),
  };
  recorder.record({ type: 'TOOL_APPROVED', toolCallId: call.id, tool: call.tool, args: call.args, decision });
}

/** Asks a human at the desk; `undefined` = approved (maybe with edited arguments), else the refusal. */
export async function askHuman(call: ApprovingCall, gate: GateSpec): Promise<string | undefined> {
  let preview: string | undefined;
  // Since 0.2 every gated call's arguments are checked before a human is asked, not only a tool
  // with a preview; turns paused on 0.1 (no marker in their history) keep the old path on replay.
  // A sub-agent call has no worker tool to preview; its arguments were checked already.
  if (!call.isSubAgent && (call.toolSpec?.preview || call.turn.recorder.version.has(PATCH_VALIDATE_BEFORE_APPROVAL))) {
    // A tool without a preview whose model call checked the arguments (PATCH_AT_COST): no activity
    // between the model's answer and the wait (a marker, and the task a query arriving with it forced).
    const checked = call.turn.recorder.version.atCost && !call.toolSpec?.preview ? call.check : undefined;
    if (checked && !checked.ok) return call.fail(checked.error, { modelSees: `Error: ${checked.error}` });
    if (!checked) {
      const prepared = await previewOf(call);
      if (prepared.type === 'invalid') return prepared.error;
      preview = prepared.value;
    }
  }
  return call.decided(await call.turn.desk.wait({ ...call.context(), args: call.args }, gate, preview));
}

/**
 * Shows the approver what the call would do (the tool's `preview`), validating its arguments first:
 * invalid arguments fail the call without bothering a human. A preview that cannot be made is shown
 * as unavailable, not fatal.
 */
async function previewOf(call: ApprovingCall): Promise<Checked<string | undefined>> {
  try {
    const request = { ...call.context(), rawArgs: call.rawArgs };
    const summary = `preview ${call.tool}`;
    // A lean run previews in a local activity (one marker; an activity is three events and a task).
    const { recorder } = call.turn;
    const prepared = await (recorder.version.lean
      ? recorder.clock.local(() =>
          localActs.previewTool.executeWithOptions({ ...localHookOptions, summary }, [request]),
        )
      : acts.previewTool.executeWithOptions({ ...hookOptions, summary }, [request]));
    if (prepared.ok) return { type: 'valid', value: prepared.preview };
    return { type: 'invalid', error: call.fail(prepared.error, { modelSees: `Error: ${prepared.error}` }) };
  } catch (err) {
    if (isCancellation(err)) throw err;
    return { type: 'valid', value: `(preview unavailable: ${describeFailure(err)})` };
  }
}

/**
 * The agent's approval hook decides: `undefined` = proceed, else the refusal text; on Ask a human
 * decides through `askHuman`. A hook that throws (or never answers) denies: fail closed.
 */
export async function consultApprovalHook(
  call: ApprovingCall,
  askHuman: () => Promise<string | undefined>,
): Promise<string | undefined> {
  const { recorder } = call.turn;
  let outcome: ApprovalOutcome;
  try {
    const response = await acts.approveTool.executeWithOptions({ ...hookOptions, summary: `approve ${call.tool}` }, [
      { ...call.context(), args: call.args },
    ]);
    recorder.hookFailures(response.hookFailures, call.id);
    outcome = response.outcome;
  } catch (err) {
    if (isCancellation(err)) throw err;
    recorder.hookFailures([{ hook: 'approveTool', error: describeFailure(err) }], call.id);
    outcome = { action: 'deny' };
  }
  if (outcome.action === 'ask') return askHuman();
  const reason = outcome.action === 'deny' ? outcome.reason : undefined;
  const decision: RecordedDecision = {
    id: call.id,
    approved: outcome.action === 'proceed',
    scope: 'once',
    at: recorder.now(),
    via: 'hook',
    ...(reason !== undefined && { reason }),
  };
  const base = { toolCallId: call.id, tool: call.tool, args: call.args };
  if (decision.approved) {
    recorder.record({ type: 'TOOL_APPROVED', ...base, decision });
    return undefined;
  }
  const result = deniedResult(reason);
  recorder.record({ type: 'TOOL_DENIED', ...base, result, decision, ...(reason !== undefined && { reason }) });
  return result;
}
