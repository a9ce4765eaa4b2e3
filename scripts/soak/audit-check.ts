/**
 * The soak's decisions held against an audit export of its turns (issue 37): every decision a client saw
 * take effect is one audit row (same turn, call, verdict, approver and channel), the audit lists no
 * decision the soak did not make, every refused attempt the audit lists is one the soak sent, every call
 * the soak let expire is an `expired` row, and the export's chain verifies and catches a changed row.
 *
 * A decide update its validator refused is not in any history (Temporal records no rejected update, by
 * design), so no history-based audit lists it; the reconciliation counts those apart. Pure: no I/O.
 */
import type { AuditRow } from '../../src/audit';
import type { DecisionRecord } from './deciders';
import type { DeciderName } from './scenarios';
import type { TurnRecord } from './turns';

export interface AuditReconciliation {
  /** Rows of the soak's turns, by outcome. */
  rows: Record<string, number>;
  /** Decisions the soak saw take effect (the call's recorded decision is this client's). */
  soakApplied: number;
  /** Rows that decided a call through a client (`update` or `signal`): must equal `soakApplied`. */
  auditDecided: number;
  /** Gated calls the soak let expire, and the audit's `expired` rows: must be equal. */
  soakExpired: number;
  auditExpired: number;
  /** Decisions the soak was refused, and how many of them history kept (the rest its validator refused). */
  soakRefused: number;
  refusedInHistory: number;
  /** Whether the export verified, and whether a changed row was caught (filled in by the caller). */
  verified?: boolean;
  tamperCaught?: boolean;
  problems: string[];
}

const key = (turnId: string, callId: string | undefined) => `${turnId}\u0000${callId ?? ''}`;

/**
 * Reconciles `records` (the soak's turns, with what each client sent and was told) with `rows` (the audit
 * of those turns); `channelOf` says which channel a client's decisions must show.
 */
export function reconcileAudit(
  records: readonly TurnRecord[],
  rows: readonly AuditRow[],
  channelOf: (client: DeciderName) => string,
): AuditReconciliation {
  const problems: string[] = [];
  const problem = (line: string) => problems.length < 50 && problems.push(line);
  const counts: Record<string, number> = {};
  for (const r of rows) counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;

  const decidedRows = rows.filter(
    (r) => (r.via === 'update' || r.via === 'signal') && ['approved', 'edited', 'denied'].includes(r.outcome),
  );
  const byCall = new Map<string, AuditRow[]>();
  const push = <T>(map: Map<string, T[]>, k: string, value: T) => map.set(k, [...(map.get(k) ?? []), value]);
  for (const r of decidedRows) push(byCall, key(r.turnId, r.toolCallId), r);
  const sent = new Map<string, DecisionRecord[]>();

  let soakApplied = 0;
  let soakRefused = 0;
  let soakExpired = 0;
  for (const t of records) {
    if (!t.turnId) continue;
    const calls = t.result?.toolCalls ?? [];
    soakExpired += calls.filter((c) => c.status === 'timed_out' && !c.decision).length;
    for (const d of t.decisions) {
      const k = key(d.turnId, d.callId);
      push(sent, k, d);
      if (d.outcome === 'refused') soakRefused++;
      const recorded = calls.find((c) => c.id === d.callId)?.decision;
      const applied =
        recorded !== undefined &&
        recorded.approved === d.approved &&
        (d.approver === undefined || recorded.approver === d.approver);
      if (!applied) continue;
      soakApplied++;
      const matches = (byCall.get(k) ?? []).filter(
        (r) =>
          (r.outcome === 'denied') === !d.approved &&
          (d.approver === undefined || r.approver === d.approver) &&
          r.channel === channelOf(d.client),
      );
      if (matches.length !== 1) {
        const found = (byCall.get(k) ?? []).map((r) => `${r.outcome}/${r.approver}/${r.channel}`).join(', ') || 'none';
        problem(
          `${d.turnId} ${d.callId}: ${d.client}'s decision (${d.approved}) is ${matches.length} audit rows on channel ${channelOf(d.client)} (found: ${found})`,
        );
      }
    }
  }
  for (const [k, list] of byCall) {
    if (!sent.has(k)) problem(`audit row(s) ${list.map((r) => r.row).join(', ')}: a decision the soak did not send`);
    else if (list.length > 1)
      problem(`audit rows ${list.map((r) => r.row).join(', ')}: one call decided ${list.length} times`);
  }
  const refusedRows = rows.filter((r) => r.outcome === 'refused');
  for (const r of refusedRows) {
    const mine = sent.get(key(r.turnId, r.toolCallId)) ?? [];
    if (!mine.some((d) => r.approver === undefined || d.approver === undefined || d.approver === r.approver))
      problem(`audit row ${r.row}: a refused attempt on ${r.turnId} ${r.toolCallId ?? ''} the soak did not send`);
  }
  const auditExpired = counts.expired ?? 0;
  if (decidedRows.length !== soakApplied)
    problem(`the audit lists ${decidedRows.length} decisions; the soak saw ${soakApplied} take effect`);
  if (auditExpired !== soakExpired)
    problem(`the audit lists ${auditExpired} expiries; the soak let ${soakExpired} expire`);
  return {
    rows: counts,
    soakApplied,
    auditDecided: decidedRows.length,
    soakExpired,
    auditExpired,
    soakRefused,
    refusedInHistory: refusedRows.length,
    problems,
  };
}
