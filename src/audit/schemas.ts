/**
 * An audit row as it leaves the process (JSON Lines, CSV) and as `tiller audit verify` reads it back:
 * a zod schema, so a reader checks what it gets.
 */
import { z } from 'zod';

/** What happened to a gated call, or to an attempt to decide one. */
export const AuditOutcome = z.enum(['approved', 'edited', 'denied', 'expired', 'escalated', 'refused']);
export type AuditOutcome = z.infer<typeof AuditOutcome>;

/** One decision (or refused attempt) of one turn. */
export const AuditRow = z.strictObject({
  /** 1, 2, … in the export's order; the hash chain follows it. */
  row: z.number().int().positive(),
  turnId: z.string(),
  runId: z.string().optional(),
  agent: z.string().optional(),
  session: z.string().optional(),
  outcome: AuditOutcome,
  tool: z.string().optional(),
  toolCallId: z.string().optional(),
  /** The digest an approver is shown (`sha256:…`, salted per turn as the turn salts it). */
  argsDigest: z.string().optional(),
  /** The arguments, only when the export was asked to include them. */
  args: z.unknown().optional(),
  /** The edited arguments an approver approved with (only with arguments included). */
  editedArgs: z.unknown().optional(),
  approver: z.string().optional(),
  channel: z.string(),
  /** How the decision reached the turn: `update`, `signal`, `trust` (a grant), `hook`, `timeout`. */
  via: z.string(),
  scope: z.enum(['once', 'turn', 'session']).optional(),
  reason: z.string().optional(),
  /** When the turn started, and when it recorded the decision (or the attempt arrived). */
  turnStartedAt: z.string().optional(),
  at: z.string().optional(),
  /** The trust grant the call ran under (`via: trust`), or the one this approval granted. */
  trust: z.object({ tool: z.string(), scope: z.enum(['turn', 'session']), approver: z.string().optional() }).optional(),
  /** The previous row's hash (64 zeros for the first row). */
  prev: z.string().regex(/^[0-9a-f]{64}$/),
  /** SHA-256 of `prev` and this row's canonical JSON without `hash`. */
  hash: z.string().regex(/^[0-9a-f]{64}$/),
});
export type AuditRow = z.infer<typeof AuditRow>;

/** A row before it is numbered and chained. */
export type AuditEntry = Omit<AuditRow, 'row' | 'prev' | 'hash'>;
