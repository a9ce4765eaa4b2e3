/** How a call's wait ended, as a Slack message says it: from the hook's context or from a turn's state. */
import type { RecordedDecision, ToolCallRecord, TrustScope, TurnStatus } from '../../core/schemas';
import type { ApprovalResolvedContext } from '../../core/spec';

export type SlackOutcome =
  | { type: 'approved'; approver?: string; scope: TrustScope; edited: boolean; at?: string }
  | { type: 'denied'; approver?: string; reason?: string; at?: string }
  | { type: 'timed_out' }
  /** The turn ended (cancelled, failed) while the call waited. */
  | { type: 'ended'; turnStatus: TurnStatus };

export function outcomeOfDecision(d: Omit<RecordedDecision, 'id'>): SlackOutcome {
  const who = { ...(d.approver !== undefined && { approver: d.approver }), at: d.at };
  return d.approved
    ? { type: 'approved', ...who, scope: d.scope, edited: d.args !== undefined }
    : { type: 'denied', ...who, ...(d.reason !== undefined && { reason: d.reason }) };
}

export function outcomeOfResolved(ctx: Pick<ApprovalResolvedContext, 'outcome' | 'decision'>): SlackOutcome {
  if (ctx.decision) return outcomeOfDecision(ctx.decision);
  if (ctx.outcome === 'timed_out') return { type: 'timed_out' };
  // A decision always comes with approved/denied; without one, say what is known.
  return ctx.outcome === 'approved' ? { type: 'approved', scope: 'once', edited: false } : { type: 'denied' };
}

/** What a turn's state says about a call that no longer waits; undefined while it still does. */
export function outcomeOfRecord(record: ToolCallRecord, turnStatus: TurnStatus): SlackOutcome | undefined {
  if (record.status === 'awaiting_approval') return undefined;
  if (record.status === 'timed_out') return { type: 'timed_out' };
  if (record.decision) return outcomeOfDecision(record.decision);
  return { type: 'ended', turnStatus };
}
