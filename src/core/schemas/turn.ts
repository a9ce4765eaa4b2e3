/**
 * A turn's input and result on the wire (part of the contract, src/core/schemas/index.ts): the `agentTurn`
 * workflow's input, a sub-agent tool's arguments, and what a turn returns. Pure zod.
 */
import { z } from 'zod';
import { TrustGrant } from './decisions';
import { ToolCallRecord, Usage } from './records';

/** A message of the conversation so far, as a session passes it to its next turn. */
export const ConversationMessage = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.string(),
});
export type ConversationMessage = z.infer<typeof ConversationMessage>;

/** The `agentTurn` workflow's input: the agent, the user's message, and what a session or parent passes on. */
export const TurnInput = z.object({
  agent: z.string().min(1, 'agent is required'),
  input: z.string(),
  sessionId: z.string().optional(),
  /**
   * Who started the turn (the gateway's verified caller, a session's sender, a library caller who
   * says so): they may not approve the turn's gated calls unless the gate has `allowSelfApproval`.
   */
  startedBy: z.string().min(1).max(200).optional(),
  trust: z.array(TrustGrant).optional(),
  /** Earlier user/assistant messages, placed between the instructions and this input. */
  history: z.array(ConversationMessage).optional(),
  /** Tokens this turn may use at most (a session passes what is left of its budget). */
  tokenBudget: z.number().int().nonnegative().optional(),
  /** Set when this turn runs as a sub-agent: the parent turn and the tool call that started it. */
  parent: z.object({ turnId: z.string().min(1), toolCallId: z.string().min(1), agent: z.string().min(1) }).optional(),
  /**
   * Agents whose approval gates and hooks this turn adds to its own agent's (nearest first): a
   * sub-agent declared with `inherit: true` gets its parent's. Merged by the `startTurn` activity.
   */
  inherit: z.array(z.string().min(1)).optional(),
  /**
   * The provider's count of a recent prompt (a session passes its last turn's): the context window's
   * first estimate of this turn's prompt is calibrated by it (else four characters a token).
   */
  contextCalibration: z.object({ tokens: z.number().int().positive(), chars: z.number().int().positive() }).optional(),
  /** Continue as new once a run's history passes this many events (besides Temporal's own suggestion). */
  maxHistoryEvents: z.number().int().positive().optional(),
  /** Internal: what the previous run carried through continue-as-new (src/workflows/carry.ts). */
  carried: z.any().optional(),
});
/** The `agentTurn` workflow's input; see the {@link TurnInput} schema. */
export type TurnInput = z.infer<typeof TurnInput>;

/** The arguments the model sends when it calls a sub-agent tool. */
export const SubAgentArgs = z.object({ input: z.string().min(1, 'input (the task for the sub-agent) is required') });
export type SubAgentArgs = z.infer<typeof SubAgentArgs>;

/**
 * What a turn returns (and a failed turn carries in its `TurnFailed` failure). Checked where it
 * crosses a process (a session or parent reading a child's failure, a client reading a turn's).
 */
export const TurnResult = z.object({
  output: z.string(),
  /** Structured output: the answer parsed and validated by the agent's `output` schema. */
  parsed: z.unknown().optional(),
  usage: Usage,
  toolCalls: z.array(ToolCallRecord),
  status: z.enum(['completed', 'failed', 'cancelled']),
  trust: z.array(TrustGrant),
  error: z.string().optional(),
  /** The guardrail that ended the turn (`GuardrailTripped`): its name, kind and what it returned (bounded). */
  guardrail: z.object({ name: z.string(), kind: z.enum(['input', 'output']), info: z.unknown().optional() }).optional(),
  /** The agent that answered, when a handoff gave the turn to another agent than it started with. */
  agent: z.string().optional(),
  /**
   * The conversation was trimmed for the context window: the oldest `dropped` messages of the turn's
   * `history` were dropped (or replaced by `summary`). A session keeps its conversation the same way.
   */
  context: z
    .object({
      dropped: z.number().int().nonnegative(),
      summary: z.string().optional(),
      /** The provider's count of the turn's last prompt, for the next turn's first estimate. */
      calibration: z.object({ tokens: z.number(), chars: z.number() }).optional(),
    })
    .optional(),
});
export type TurnResult = z.infer<typeof TurnResult>;
