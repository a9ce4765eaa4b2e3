/**
 * The approval audit trail (`tiller audit`): every decision across turns — approved, edited, denied,
 * expired, passed by a trust grant or the approval hook, and refused attempts — read from the turns'
 * histories (no state of its own), decoded with the codec, as JSON Lines or CSV, chained by SHA-256 so
 * `tiller audit verify` finds a changed, removed or reordered row.
 *
 * @module
 */
import { readTurnHistories, type HistoryReader, type TurnSelection } from '../eval/history-source';
import { chainRows, verifyChain, type ChainVerdict } from './chain';
import { csvHeader, csvLine, jsonLine, parseExport } from './format';
import { auditEntries } from './rows';
import type { AuditRow } from './schemas';

export { AuditOutcome, AuditRow, type AuditEntry } from './schemas';
export { chainRows, verifyChain, rowHash, GENESIS, type ChainVerdict } from './chain';
export { csvHeader, csvLine, jsonLine, parseExport, CSV_COLUMNS } from './format';
export { auditEntries, type RowOptions } from './rows';
export { channelOf, channelIdentity, type Channel } from './channel';

/** Which turns to audit, and how. */
export interface AuditOptions extends HistoryReader {
  turns: TurnSelection;
  /** Turns that started in this range (ISO-8601 or `Date`), added to `turns.query` (or alone). */
  since?: string | Date;
  until?: string | Date;
  /** Put the tool arguments in the rows (default: their digest only). */
  includeArgs?: boolean;
}

const iso = (d: string | Date) => (typeof d === 'string' ? new Date(d) : d).toISOString();

/** The visibility conditions for a start time in the range. */
const startedIn = (since?: string | Date, until?: string | Date) => [
  ...(since !== undefined ? [`StartTime >= "${iso(since)}"`] : []),
  ...(until !== undefined ? [`StartTime < "${iso(until)}"`] : []),
];

/** The visibility filter for turns started in a range, within `query` when given. */
export function rangeQuery(
  query: string | undefined,
  since?: string | Date,
  until?: string | Date,
): string | undefined {
  const parts = [...(query ? [`(${query})`] : []), ...startedIn(since, until)];
  if (parts.length === (query ? 1 : 0)) return query;
  return ['WorkflowType = "agentTurn"', ...parts].join(' AND ');
}

/**
 * Sessions whose turns ran inside them (`inlineTurns`: only those set Tiller's status on the session's
 * own workflow), started in the range: their decisions are in no turn's history, so not in the trail.
 */
export function inlineSessionsQuery(since?: string | Date, until?: string | Date): string {
  return ['WorkflowType = "agentSession"', 'TillerStatus IS NOT NULL', ...startedIn(since, until)].join(' AND ');
}

/** The audit rows of the selected turns, numbered and chained, oldest turn first. */
export async function auditTrail(opts: AuditOptions): Promise<AuditRow[]> {
  const query = rangeQuery(opts.turns.query, opts.since, opts.until);
  const histories = await readTurnHistories({ ...opts.turns, ...(query !== undefined && { query }) }, opts);
  histories.sort((a, b) => (a.startedAt ?? '').localeCompare(b.startedAt ?? ''));
  const entries = histories.flatMap((h) =>
    h.workflowType === undefined || h.workflowType === 'agentTurn'
      ? auditEntries(h, { includeArgs: opts.includeArgs ?? false })
      : [],
  );
  return chainRows(entries);
}

/** The rows as an export: JSON Lines, or CSV with a header. */
export function formatAudit(rows: readonly AuditRow[], format: 'jsonl' | 'csv'): string {
  const lines = format === 'csv' ? [csvHeader(), ...rows.map(csvLine)] : rows.map(jsonLine);
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/** Verifies an export's text (either format): its rows parse and their chain holds. */
export function verifyExport(text: string): ChainVerdict {
  let rows: AuditRow[];
  try {
    rows = parseExport(text);
  } catch (err) {
    return { ok: false, row: 0, reason: (err as Error).message };
  }
  return verifyChain(rows);
}
