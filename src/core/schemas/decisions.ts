/**
 * Decisions and trust on the wire (part of the contract, src/core/schemas/index.ts): a decision as any
 * client sends it, as the workflow records it, and the trust grants approvals leave. Pure zod.
 */
import { z } from 'zod';
import { BOUNDS, deeperThan } from '../bounds';

/** How far an approval reaches: this call (`once`), the tool for the rest of the turn, or for the session. */
export const TrustScope = z.enum(['once', 'turn', 'session']);
/** How far an approval reaches; see the {@link TrustScope} schema. */
export type TrustScope = z.infer<typeof TrustScope>;

/** A tool trusted for the rest of a turn or a session: its calls need no approval there. */
export const TrustGrant = z.object({
  tool: z.string().min(1),
  scope: z.enum(['turn', 'session']),
  approver: z.string().optional(),
  at: z.string().optional(),
});
/** A tool trusted for the rest of a turn or a session; see the {@link TrustGrant} schema. */
export type TrustGrant = z.infer<typeof TrustGrant>;

/** A decision as sent by any client (update or signal `decide`). Unknown keys are rejected. */
export const Decision = z.strictObject({
  id: z
    .string()
    .min(1, 'id (the tool call id from pendingApprovals) is required')
    .max(BOUNDS.name, `id is at most ${BOUNDS.name} characters`),
  approved: z.boolean({ error: 'approved must be true or false' }),
  reason: z.string().max(2000).optional(),
  scope: TrustScope.optional(),
  approver: z.string().max(200).optional(),
  /** Groups of the approver, as a verified client (the gateway) asserts them; matched by `group:<name>`. */
  approverGroups: z.array(z.string().max(200)).max(50).optional(),
  /** The turn the approver decides on; when present it must be the turn that waits (a session's inline turns share a workflow). */
  turnId: z.string().max(1000).optional(),
  /** The `argsDigest` the approver saw; when present it must match the pending call. */
  argsDigest: z.string().max(200).optional(),
  /** Approve with edited arguments; validated against the tool's schema before they are accepted. */
  args: z
    .record(z.string(), z.unknown())
    .refine((args) => !deeperThan(args, BOUNDS.jsonDepth), `args are nested deeper than ${BOUNDS.jsonDepth} levels`)
    .optional(),
});
export type Decision = z.infer<typeof Decision>;

/** What the workflow records for a decision, and what the `decide` update returns. */
export const RecordedDecision = z.object({
  id: z.string(),
  approved: z.boolean(),
  reason: z.string().optional(),
  scope: TrustScope,
  approver: z.string().optional(),
  at: z.string(),
  /** Who decided: a human (`update`, `signal`), a trust grant, or the approval hook. */
  via: z.enum(['update', 'signal', 'trust', 'hook']),
  /** The approver's edited arguments, when they approved with changes. */
  args: z.record(z.string(), z.unknown()).optional(),
});
export type RecordedDecision = z.infer<typeof RecordedDecision>;
