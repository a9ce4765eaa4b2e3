/**
 * What a turn's state records on the wire (part of the contract, src/core/schemas/index.ts): usage, tool
 * calls and their status, pending approvals, the turn's status, sub-agent runs. Pure zod.
 */
import { z } from 'zod';
import { RecordedDecision } from './decisions';

/** Tokens and model calls, summed over a turn's model calls (and its sub-agents'). */
export const Usage = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
  modelCalls: z.number().int().nonnegative(),
  /** Of `modelCalls`, those whose server reported no usage: their tokens are Tiller's estimate. Absent: none. */
  estimatedCalls: z.number().int().nonnegative().optional(),
});
/** Tokens and model calls; see the {@link Usage} schema. */
export type Usage = z.infer<typeof Usage>;

/** Usage of nothing yet: zero tokens, zero model calls. */
export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, totalTokens: 0, modelCalls: 0 };
}

/** Where a tool call stands. */
export const ToolCallStatus = z.enum(['awaiting_approval', 'running', 'succeeded', 'failed', 'denied', 'timed_out']);
/** Where a tool call stands; see the {@link ToolCallStatus} schema. */
export type ToolCallStatus = z.infer<typeof ToolCallStatus>;

/** One tool call of a turn, as `state` and the turn's result show it. */
export const ToolCallRecord = z.object({
  id: z.string(),
  name: z.string(),
  /** The arguments exactly as the model sent them, parsed when they are JSON (else the raw string). */
  args: z.unknown(),
  status: ToolCallStatus,
  startedAt: z.string().optional(),
  endedAt: z.string().optional(),
  durationMs: z.number().optional(),
  result: z.string().optional(),
  error: z.string().optional(),
  decision: RecordedDecision.omit({ id: true }).optional(),
  /** When the wait escalated past its first stage's deadline, and to whom (the audit's `escalated` row). */
  escalated: z.object({ at: z.string(), approvers: z.array(z.string()) }).optional(),
});
export type ToolCallRecord = z.infer<typeof ToolCallRecord>;

/** A call waiting for a human, as `state.pendingApprovals` lists it: decide it by its `id`. */
export interface PendingApproval {
  id: string;
  tool: string;
  args: unknown;
  argsDigest: string;
  requestedAt: string;
  /** End of the current stage: expiry, or escalation when `escalatesTo` is set. */
  expiresAt?: string;
  /** Who may decide now (names, `group:<name>`); anyone when absent. */
  approvers?: string[];
  /** Who decides after the deadline, when the gate escalates. */
  escalatesTo?: string[];
  escalated?: boolean;
  reminders?: number;
  /** What the call would do, from the tool's `preview`. */
  preview?: string;
}

/** Where a turn stands. */
export const TurnStatus = z.enum(['running', 'awaiting_approval', 'completed', 'failed', 'cancelled']);
/** Where a turn stands; see the {@link TurnStatus} schema. */
export type TurnStatus = z.infer<typeof TurnStatus>;

/** A sub-agent this turn started: a child `agentTurn`, decided and followed by its own workflow id. */
export interface SubAgentRun {
  /** The child turn's workflow id: send `decide` for its pending approvals there. */
  turnId: string;
  agent: string;
  /** The tool (sub-agent name) the parent's model called, and that call's id. */
  tool: string;
  toolCallId: string;
  inherit: boolean;
  status: TurnStatus;
  /** What the child waits for, as it last reported (decide these on `turnId`, not on the parent). */
  pendingApprovals: PendingApproval[];
  /** The child's usage once it has ended (already included in the parent's `usage`). */
  usage?: Usage;
  startedAt: string;
  endedAt?: string;
  error?: string;
}
