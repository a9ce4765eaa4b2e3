/** The gateway's request and response bodies as zod schemas: validation and the OpenAPI document. */
import { z } from 'zod';
import { RecordedDecision, TrustGrant, TrustScope, TurnStatus, Usage } from '../core/schemas';
import { SCOPES } from './identity';

const Id = z
  .string()
  .min(1)
  .max(1_000)
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]+$/, 'no control characters');

export const TurnIdParam = z.object({ id: Id });

export const StartTurnBody = z.strictObject({
  agent: z.string().min(1, 'agent is required').max(200),
  input: z.string().min(1, 'input is required').max(100_000),
  sessionId: Id.optional().describe('run the turn as the next turn of this session (started on first use)'),
  inlineTurns: z
    .boolean()
    .optional()
    .describe(
      "with sessionId: a session this send starts runs its turns inside its own workflow (turn ids '<session>#turn-<n>')",
    ),
});

export const TurnStarted = z.object({ turnId: z.string(), sessionId: z.string().optional() });

export const DecisionBody = z.strictObject({
  id: z.string().min(1, 'id (the tool call id from pendingApprovals) is required').max(1_000),
  approved: z.boolean({ error: 'approved must be true or false' }),
  reason: z.string().max(2_000).optional(),
  scope: TrustScope.optional(),
  args: z.record(z.string(), z.unknown()).optional().describe('approve with edited arguments (needs the args right)'),
  argsDigest: z.string().max(200).optional().describe('the argsDigest the approver saw; must match'),
  approver: z.string().max(200).optional().describe('ignored: the gateway records the verified identity'),
  approverGroups: z.array(z.string()).max(50).optional().describe('ignored: taken from the verified identity'),
});

export const WebhookDecisionBody = z.strictObject({
  turnId: Id,
  id: z.string().min(1).max(1_000),
  approved: z.boolean({ error: 'approved must be true or false' }),
  reason: z.string().max(2_000).optional(),
  scope: TrustScope.optional(),
  argsDigest: z.string().max(200).optional(),
  approver: z
    .string()
    .min(1, 'approver (who pressed the button) is required')
    .max(180)
    .describe('recorded as webhook:<approver>'),
});

export const Recorded = RecordedDecision;

export const ErrorBody = z.object({ error: z.string() });

export const Me = z.object({
  name: z.string(),
  groups: z.array(z.string()),
  scopes: z.array(z.enum(SCOPES)),
  canSeeArgs: z.boolean(),
  via: z.enum(['token', 'jwt']),
});

const PendingApproval = z.object({
  id: z.string(),
  tool: z.string(),
  args: z.unknown().describe('exactly as the model sent them; "[redacted]" (like all content) without the args right'),
  argsDigest: z.string(),
  requestedAt: z.string(),
  expiresAt: z.string().optional(),
  approvers: z.array(z.string()).optional(),
  escalatesTo: z.array(z.string()).optional(),
  escalated: z.boolean().optional(),
  reminders: z.number().optional(),
  preview: z.string().optional(),
});

export const InboxItem = PendingApproval.extend({
  turnId: z.string(),
  agent: z.string(),
  sessionId: z.string().optional(),
  youMayDecide: z.boolean().describe('this identity has the decide right and is allowed by the gate'),
});

export const Inbox = z.object({ approvals: z.array(InboxItem), turns: z.number().int() });

export const InboxQuery = z.object({
  agent: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

export const EventsQuery = z.object({
  types: z.string().max(2_000).optional().describe('comma-separated event types or globs, e.g. TOOL_*,APPROVAL_*'),
  lastEventId: z.string().max(20).optional().describe('resume after this seq (same as the Last-Event-ID header)'),
  deltas: z
    .enum(['on', 'off'])
    .optional()
    .describe('the model text as it streams, as `delta` / `discard` events (default on)'),
  access_token: z.string().max(8_192).optional().describe('the bearer token, for EventSource (no headers)'),
});

/**
 * The `state` query's answer (docs/architecture.md, "The wire contract"), documented loosely: the wire
 * contract is the source.
 */
export const TurnStateDoc = z.looseObject({
  version: z.number(),
  status: TurnStatus,
  agent: z.string(),
  turnId: z.string(),
  sessionId: z.string().optional(),
  startedBy: z
    .string()
    .optional()
    .describe('who started the turn: may not approve its calls (unless a gate allows it)'),
  pendingApprovals: z.array(PendingApproval),
  toolCalls: z.array(z.looseObject({ id: z.string(), name: z.string(), args: z.unknown(), status: z.string() })),
  trust: z.array(TrustGrant),
  usage: Usage,
  events: z.array(z.looseObject({ seq: z.number().int(), type: z.string(), at: z.string() })),
  eventCount: z.number().int(),
  output: z.string().optional(),
  error: z.string().optional(),
});

export const CancelResult = z.object({ turnId: z.string(), cancelRequested: z.literal(true) });
