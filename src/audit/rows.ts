/**
 * A turn's decisions from its decoded history (src/eval/history-decode.ts): each gated call's outcome
 * from the turn's result (approved, edited, denied, expired, or passed by a trust grant or the approval
 * hook, with an `escalated` row before it when its wait escalated), or from its accepted `decide` updates while it still runs; and each refused attempt — an update
 * the workflow refused after it was accepted, a signal that decided nothing. The channel comes from the
 * message's update id and client identity (./channel.ts). Pure.
 */
import { argsDigest } from '../core/digest';
import { RecordedDecision, TurnInput, TurnResult, type ToolCallRecord } from '../core/schemas';
import type { DecideMessage, TurnHistory } from '../eval/history-decode';
import { PATCH_SALTED_ARGS_DIGEST, VERSION_MARKERS } from '../workflows/patches';
import { channelOf } from './channel';
import type { AuditEntry } from './schemas';

/** The patches whose runs salt their digests (a version marker, from `lean-turn` on, stands for every earlier patch). */
export const SALTED_PATCHES: readonly string[] = [PATCH_SALTED_ARGS_DIGEST, ...VERSION_MARKERS];

/** What an audit row may carry: the arguments themselves only when asked for. */
export interface RowOptions {
  /** Put the arguments in the rows (default: the digest only). */
  includeArgs?: boolean;
}

const decisionOf = (m: DecideMessage) => {
  const d = m.args && typeof m.args === 'object' ? (m.args as Record<string, unknown>) : {};
  return {
    id: typeof d.id === 'string' ? d.id.slice(0, 200) : undefined,
    approved: d.approved === true,
    approver: typeof d.approver === 'string' ? d.approver.slice(0, 200) : undefined,
    reason: typeof d.reason === 'string' ? d.reason.slice(0, 2000) : undefined,
  };
};

/** Every decision and refused attempt of one turn, in the order they happened. */
export function auditEntries(h: TurnHistory, opts: RowOptions = {}): AuditEntry[] {
  const input = TurnInput.safeParse(h.input);
  const result = TurnResult.safeParse(h.result);
  const base = {
    turnId: h.workflowId,
    ...(h.runId !== undefined && { runId: h.runId }),
    ...(input.success && { agent: input.data.agent }),
    ...(input.success && input.data.sessionId !== undefined && { session: input.data.sessionId }),
    ...(h.startedAt !== undefined && { turnStartedAt: h.startedAt }),
  };
  const salt = h.patches.some((p) => SALTED_PATCHES.includes(p)) ? h.firstRunId : undefined;
  const digestOf = (tool: string, args: unknown) => argsDigest(tool, args, salt);
  const used = new Set<DecideMessage>();
  const messageFor = (id: string, approved: boolean, via: string, approver?: string) => {
    const m = h.decides.find((d) => {
      const x = decisionOf(d);
      return !used.has(d) && d.kind === via && x.id === id && x.approved === approved && x.approver === approver;
    });
    if (m) used.add(m);
    return m;
  };
  const entries: AuditEntry[] = [];
  const calls: ToolCallRecord[] = result.success ? result.data.toolCalls : [];
  const trust = result.success ? result.data.trust : [];
  for (const c of calls) {
    const d = c.decision;
    const call = {
      tool: c.name,
      toolCallId: c.id,
      argsDigest: digestOf(c.name, c.args),
      ...(opts.includeArgs && { args: c.args }),
    };
    if (c.escalated) {
      // The first stage's deadline passed: the wait moved on to the next approvers (then a decision or expiry).
      entries.push({
        ...base,
        ...call,
        outcome: 'escalated',
        channel: 'timeout',
        via: 'timeout',
        reason: `escalated to ${c.escalated.approvers.join(', ') || 'nobody'}`.slice(0, 2000),
        at: c.escalated.at,
      });
    }
    if (c.status === 'timed_out' && !d) {
      entries.push({ ...base, ...call, outcome: 'expired', channel: 'timeout', via: 'timeout', ...at(c.endedAt) });
      continue;
    }
    if (!d) continue;
    const m = d.via === 'update' || d.via === 'signal' ? messageFor(c.id, d.approved, d.via, d.approver) : undefined;
    const grant = trust.find((g) => g.tool === c.name);
    entries.push({
      ...base,
      ...call,
      outcome: !d.approved ? 'denied' : d.args !== undefined ? 'edited' : 'approved',
      ...(d.args !== undefined && opts.includeArgs && { editedArgs: d.args }),
      ...(d.approver !== undefined && { approver: d.approver }),
      channel:
        d.via === 'trust' || d.via === 'hook'
          ? d.via
          : channelOf({ ...m, ...(d.approver && { approver: d.approver }) }),
      via: d.via,
      scope: d.scope,
      ...(d.reason !== undefined && { reason: d.reason }),
      at: d.at,
      ...(grant && (d.via === 'trust' || d.scope !== 'once') && { trust: grant }),
    });
  }
  for (const m of h.decides) {
    if (used.has(m)) continue;
    const x = decisionOf(m);
    const accepted = m.outcome?.ok ? RecordedDecision.safeParse(m.outcome.value) : undefined;
    if (accepted?.success && result.success) continue; // counted from the result above
    const call = x.id !== undefined ? calls.find((c) => c.id === x.id) : undefined;
    const refused = m.outcome?.ok === false || (m.kind === 'signal' && result.success);
    if (!refused && !accepted?.success) continue; // a signal to a turn still running: not yet known
    const recorded = accepted?.success ? accepted.data : undefined;
    entries.push({
      ...base,
      ...(x.id !== undefined && { toolCallId: x.id }),
      ...(call && { tool: call.name, argsDigest: digestOf(call.name, call.args) }),
      outcome: refused ? 'refused' : !recorded!.approved ? 'denied' : recorded!.args ? 'edited' : 'approved',
      ...(x.approver !== undefined && { approver: x.approver }),
      channel: channelOf({ ...m, ...(x.approver && { approver: x.approver }) }),
      via: m.kind,
      ...(recorded && { scope: recorded.scope }),
      ...(refused
        ? { reason: m.outcome?.ok === false ? m.outcome.message : 'the signal decided nothing' }
        : x.reason !== undefined && { reason: x.reason }),
      ...at(recorded?.at ?? m.at),
    });
  }
  return entries.sort((a, b) => (a.at ?? '').localeCompare(b.at ?? ''));
}

const at = (when: string | undefined) => (when !== undefined ? { at: when } : {});
