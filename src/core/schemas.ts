/**
 * The public wire contract (docs/architecture.md, "The wire contract") as zod schemas. Everything here is plain JSON so the
 * `temporal` CLI, the Temporal UI and other SDKs can read and write it with the default converter.
 * Pure: imported by workflow code, activities, the client and the CLI alike.
 */
import { z } from 'zod';
import { BOUNDS, clip, deeperThan } from './bounds';

/** The version of the wire contract (workflow inputs, results, queries) this code speaks. */
export const WIRE_VERSION = 1;

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

/**
 * Who is asking, as a verified client (the gateway) asserts it: a session belongs to the principal
 * that created it, and a send must come from the same name (groups are recorded, not compared).
 */
export const Principal = z.object({
  name: z.string().min(1).max(200),
  groups: z.array(z.string().max(200)).max(50).optional(),
});
export type Principal = z.infer<typeof Principal>;

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

/** Usage of nothing yet: zero tokens, zero model calls. */
export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, totalTokens: 0, modelCalls: 0 };
}

/** One readable line from a zod error, e.g. `approved: approved must be true or false`. */
export function formatZodError(error: z.ZodError): string {
  const text = error.issues
    .slice(0, 10)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
  // Issues quote the input (unknown keys, paths): bounded, whatever was sent.
  return clip(text, 1_000);
}

/** One turn of a session, as the session's state lists it. */
export interface TurnSummary {
  turnId: string;
  input: string;
  status: 'running' | 'completed' | 'failed' | 'cancelled';
  output?: string;
  error?: string;
  usage?: Usage;
  startedAt: string;
  endedAt?: string;
}

/** What an `agentSession` carries from one run to the next through continue-as-new: plain JSON. */
export interface SessionCarry {
  conversation: ConversationMessage[];
  trust: TrustGrant[];
  usage: Usage;
  turns: TurnSummary[];
  turnSeq: number;
  runs: number;
  /** The summary standing in for the conversation's oldest turns (the context window's `summarize`). */
  summary?: string;
  /** The provider's count of the last turn's last prompt (the next turn's first context estimate). */
  calibration?: { tokens: number; chars: number };
}

/** The `agentSession` workflow's input: its agent and the session's limits. */
export const SessionInput = z.object({
  agent: z.string().min(1, 'agent is required'),
  trust: z.array(TrustGrant).optional(),
  /** Continue as new after this many turns in one run (besides Temporal's own suggestion). */
  maxTurnsPerRun: z.number().int().positive().optional(),
  /** Continue as new once the run's history passes this many events. */
  maxHistoryEvents: z.number().int().positive().optional(),
  /** Tokens all turns of the session may use together; each turn gets what is left. */
  tokenBudget: z.number().int().positive().optional(),
  /** The principal the session belongs to; absent: started by a Temporal client (see `send`). */
  owner: Principal.optional(),
  /** Internal: state carried through continue-as-new. */
  carried: z.any().optional(),
});
/** The `agentSession` workflow's input; see the {@link SessionInput} schema. */
export type SessionInput = Omit<z.infer<typeof SessionInput>, 'carried'> & { carried?: SessionCarry };

/** The session's `send` update: the next input, and who sends it. */
export const SendInput = z.strictObject({
  input: z.string().min(1, 'input must not be empty'),
  /** Who sends: must be the session's owner; a session without one takes only sends without a principal. */
  principal: Principal.optional(),
});
/** The session's `send` update; see the {@link SendInput} schema. */
export type SendInput = z.infer<typeof SendInput>;

/** The session's `revokeTrust` update: the tool whose grant to remove. */
export const RevokeTrustInput = z.strictObject({
  tool: z.string().min(1),
  scope: z.enum(['turn', 'session']).optional(),
});
/** The session's `revokeTrust` update; see the {@link RevokeTrustInput} schema. */
export type RevokeTrustInput = z.infer<typeof RevokeTrustInput>;

/**
 * The `turnProgress` signal as a parent accepts it: any Temporal client can send one, so it is checked
 * (bounded sizes) and ignored when it does not fit; what it carries is bounded again when recorded.
 */
export const TurnProgressCheck = z.object({
  turnId: z.string().max(BOUNDS.name),
  status: TurnStatus,
  pendingApprovals: z
    .array(z.looseObject({ id: z.string().max(BOUNDS.name), tool: z.string().max(BOUNDS.name) }))
    .max(BOUNDS.jsonEntries),
  usage: Usage.optional(),
});
/** A `turnProgress` signal that passed its checks. */
export type CheckedProgress = z.infer<typeof TurnProgressCheck>;

/** What a child turn tells its parent (a session, or the turn that started it as a sub-agent) on each change. */
export interface TurnProgress {
  turnId: string;
  status: TurnStatus;
  pendingApprovals: PendingApproval[];
  /** Sent to a parent turn only: the child's usage so far. */
  usage?: Usage;
}

/** A session as its `state` query answers: its turns, trust grants, usage and what waits now. */
export interface SessionState {
  version: number;
  sessionId: string;
  agent: string;
  /** The principal the session belongs to (absent: a session of Temporal clients). */
  owner?: Principal;
  status: 'idle' | 'running';
  currentTurn?: TurnProgress;
  turns: TurnSummary[];
  trust: TrustGrant[];
  usage: Usage;
  conversationLength: number;
  /** How many times this session has continued as new. */
  runs: number;
  /** What the conversation's oldest turns said, summarised to fit the agent's context window. */
  summary?: string;
}
