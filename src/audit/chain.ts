/**
 * The export's hash chain: each row carries the previous row's hash and its own, SHA-256 over the
 * previous hash and the row's canonical JSON (without `hash`). Changing, removing, inserting or
 * reordering a row breaks every hash from there on; `verifyChain` says where.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/digest';
import type { AuditEntry, AuditRow } from './schemas';

/** The `prev` hash of the first row of a chain. */
export const GENESIS = '0'.repeat(64);

/** The hash of a row (its `hash` field ignored). */
export function rowHash(row: Omit<AuditRow, 'hash'> & { hash?: string }): string {
  const { hash: _ignored, ...rest } = row;
  return createHash('sha256').update(rest.prev).update('\n').update(canonicalJson(rest)).digest('hex');
}

/** Numbers and chains entries, continuing from `prev` (default the genesis hash). */
export function chainRows(entries: readonly AuditEntry[], prev: string = GENESIS, firstRow = 1): AuditRow[] {
  const rows: AuditRow[] = [];
  for (const [i, e] of entries.entries()) {
    const unhashed = { ...e, row: firstRow + i, prev };
    const hash = rowHash(unhashed);
    rows.push({ ...unhashed, hash });
    prev = hash;
  }
  return rows;
}

/** Where a chain breaks, or that it holds. */
export type ChainVerdict = { ok: true; rows: number; head: string } | { ok: false; row: number; reason: string };

/** Checks every row's link and hash, in order. */
export function verifyChain(rows: readonly AuditRow[], prev: string = GENESIS): ChainVerdict {
  for (const [i, r] of rows.entries()) {
    if (r.row !== i + 1) return { ok: false, row: i + 1, reason: `row ${i + 1} is numbered ${r.row}` };
    if (r.prev !== prev) return { ok: false, row: r.row, reason: `row ${r.row} does not follow the row before it` };
    if (rowHash(r) !== r.hash)
      return { ok: false, row: r.row, reason: `row ${r.row} was changed (its hash does not match)` };
    prev = r.hash;
  }
  return { ok: true, rows: rows.length, head: prev };
}
