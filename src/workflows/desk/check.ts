/**
 * How the approval desk takes a decision: `checkDecision` parses it and checks it against what is
 * pending now (the `decide` update's validator and both handlers share it, so both channels accept and
 * reject the same payloads); `applyDecision` adds the approver rules and edited arguments, then records
 * it. Every rejection a handler sees is recorded as DECISION_REJECTED.
 */
import { condition } from '@temporalio/workflow';
import { describeApprovers, mayDecide } from '../../core/approvers';
import { deniedResult } from '../../core/policy';
import { refusedPayload } from '../../core/failures';
import { Decision, formatZodError, type RecordedDecision } from '../../core/schemas';
import type { ValidateArgsResponse } from '../../core/spec';
import { callerOf } from '../caller';
import { PATCH_APPROVER_HEADER_REQUIRED, PATCH_DECIDE_BEFORE_WAIT, PATCH_VERIFIED_APPROVER } from '../patches';
import type { DeskDeps, DeskState, DeskVerdict, Waiter } from './types';

/**
 * Parses and checks a decision against what is pending now (the update's validator and the handlers).
 * A decision that came through the secured cluster carries its verified caller (`tillerApprover`):
 * it is decided as that approver, with that caller's groups, and refused if its body names another
 * (`verified` false: a replay of a decision applied before that rule, which kept the body's names).
 *
 * `validating` (the update's validator): a decision for a call still preparing (its approval hook or
 * preview runs) is taken after the checks that need no waiter, and so is a header-less one where the
 * worker verifies approvers — `applyDecision` holds the first until the call waits and refuses the
 * second, each recorded.
 */
export function checkDecision(
  { waiters, preparing, deps }: DeskState,
  raw: unknown,
  verified = true,
  validating = false,
): DeskVerdict<Decision> {
  const refused = refusedPayload(raw);
  if (refused !== undefined) return rejected(`decision refused: ${refused}`);
  const parsed = Decision.safeParse(raw);
  if (!parsed.success) return rejected(`malformed decision: ${formatZodError(parsed.error)}`);
  let decision = parsed.data;
  const caller = verified ? callerOf(raw) : undefined;
  if (caller?.type === 'invalid') return rejected(`decision refused: ${caller.reason}`);
  if (validating && caller === undefined && deps.verifiesApprovers?.()) return { type: 'accepted', decision };
  if (caller) {
    if (decision.approver !== undefined && decision.approver !== caller.approver)
      return rejected(`${caller.approver} may not decide as ${decision.approver}`);
    const foreign = decision.approverGroups?.find((g) => !caller.groups.includes(g));
    if (foreign !== undefined) return rejected(`${caller.approver} is not in group ${foreign}`);
    const { approverGroups: _typed, ...rest } = decision;
    decision = { ...rest, approver: caller.approver, ...(caller.groups.length && { approverGroups: caller.groups }) };
  }
  const { turnId } = deps.recorder.state;
  if (decision.turnId !== undefined && decision.turnId !== turnId)
    return rejected(`decision for turn ${decision.turnId} refused: turn ${turnId} runs here`);
  const waiter = waiters[decision.id];
  if (!waiter && validating && preparing.has(decision.id)) return { type: 'accepted', decision };
  if (!waiter) {
    const { state } = deps.recorder;
    const known = state.toolCalls.find((c) => c.id === decision.id);
    if (known) return rejected(`tool call ${decision.id} is not pending (status: ${known.status})`);
    const pending = state.pendingApprovals.map((p) => p.id);
    return rejected(`unknown tool call id ${decision.id}; pending: ${pending.length ? pending.join(', ') : '(none)'}`);
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
  const maxArgs = deps.maxArgsChars?.();
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
export async function applyDecision(
  desk: DeskState,
  raw: unknown,
  via: 'update' | 'signal',
): Promise<DeskVerdict<RecordedDecision>> {
  const { waiters, preparing, deps } = desk;
  // Where approvers are verified, a decision without the header is refused: its body names anyone.
  if (
    callerOf(raw) === undefined &&
    deps.verifiesApprovers?.() &&
    deps.recorder.version.has(PATCH_APPROVER_HEADER_REQUIRED)
  ) {
    const { id } = describePayload(raw);
    return reject(deps, via, NO_HEADER, { ...(id !== undefined && { id }) });
  }
  // A decision for a call whose hook or preview runs waits for the call to wait (or not to).
  const id = describePayload(raw).id;
  if (id !== undefined && !waiters[id] && preparing.has(id) && deps.recorder.version.has(PATCH_DECIDE_BEFORE_WAIT)) {
    await condition(() => waiters[id] !== undefined || !preparing.has(id));
    if (!waiters[id]) {
      const status = deps.recorder.state.toolCalls.find((c) => c.id === id)?.status ?? 'unknown';
      return reject(deps, via, `tool call ${id} did not wait for a decision (status: ${status})`, describePayload(raw));
    }
  }
  // Only a decision with a verified caller reaches the patch: histories without one replay unmarked.
  const checked = checkDecision(
    desk,
    raw,
    callerOf(raw) === undefined || deps.recorder.version.has(PATCH_VERIFIED_APPROVER),
  );
  if (checked.type === 'rejected') return reject(deps, via, checked.reason, describePayload(raw));
  const decision = checked.decision;
  const waiter = waiters[decision.id]!;
  const who = { id: decision.id, ...(decision.approver !== undefined && { approver: decision.approver }) };
  const rule = waiter.approvers?.length === 0 && !waiter.emptyMeansNobody ? undefined : waiter.approvers;
  if (!mayDecide(rule, decision.approver, decision.approverGroups)) {
    const allowed = describeApprovers(waiter.approvers ?? []);
    return reject(
      deps,
      via,
      `${decision.approver ?? 'an anonymous approver'} may not decide ${waiter.call.tool}; allowed: ${allowed}`,
      who,
    );
  }
  const { startedBy } = deps.recorder.state;
  if (
    decision.approved &&
    startedBy !== undefined &&
    decision.approver === startedBy &&
    !waiter.gate.allowSelfApproval
  ) {
    return reject(
      deps,
      via,
      `${startedBy} may not decide ${waiter.call.tool}: ${startedBy} started this turn, and the gate does not allow self-approval`,
      who,
    );
  }
  if (decision.args !== undefined) {
    waiter.deciding = true;
    let validation: ValidateArgsResponse;
    try {
      validation = await deps.validateArgs(waiter.call.tool, decision.args);
    } finally {
      waiter.deciding = false;
    }
    if (!validation.ok) return reject(deps, via, `edited args rejected: ${validation.error}`, who);
    if (waiter.decision || !waiters[decision.id]) {
      return reject(deps, via, `tool call ${decision.id} was decided meanwhile`, who);
    }
  }
  return { type: 'accepted', decision: record(deps, waiter, decision, via) };
}

/** Records a signal this deployment does not take, bounded like any rejection. */
export function refuseSignal(deps: DeskDeps, raw: unknown, reason: string): void {
  reject(deps, 'signal', reason, describePayload(raw));
}

function reject(
  deps: DeskDeps,
  via: 'update' | 'signal',
  reason: string,
  who: { id?: string; approver?: string },
): DeskVerdict<RecordedDecision> {
  deps.recorder.record({ type: 'DECISION_REJECTED', via, reason, ...who });
  return rejected(reason);
}

function record(deps: DeskDeps, waiter: Waiter, decision: Decision, via: 'update' | 'signal'): RecordedDecision {
  const recorded: RecordedDecision = {
    id: decision.id,
    approved: decision.approved,
    scope: decision.scope ?? 'once',
    at: deps.recorder.now(),
    via,
    ...(decision.reason !== undefined && { reason: decision.reason }),
    ...(decision.approver !== undefined && { approver: decision.approver }),
    ...(decision.args !== undefined && { args: decision.args }),
  };
  waiter.decision = recorded;
  const { tool, args, toolCallId } = waiter.call;
  if (recorded.approved) {
    deps.recorder.record({ type: 'TOOL_APPROVED', toolCallId, tool, args, decision: recorded });
    if (recorded.scope === 'turn' || recorded.scope === 'session') {
      deps.recorder.record({
        type: 'TRUST_GRANTED',
        tool,
        scope: recorded.scope,
        ...(recorded.approver !== undefined && { approver: recorded.approver }),
      });
    }
  } else {
    deps.recorder.record({
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

const NO_HEADER =
  'decision refused: this deployment verifies approvers, and the decision has no tillerApprover header (its approver is not believed)';

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
