/**
 * Sessions on the wire (part of the contract, src/core/schemas/index.ts): who owns one, its input, updates
 * and state, what it carries through continue-as-new, and the progress a child turn reports to its
 * parent. Pure zod.
 */
import { z } from 'zod';
import { BOUNDS } from '../bounds';
import { TrustGrant } from './decisions';
import { TurnStatus, Usage, type PendingApproval } from './records';
import type { ConversationMessage, TurnResult } from './turn';

/**
 * Who is asking, as a verified client (the gateway) asserts it: a session belongs to the principal
 * that created it, and a send must come from the same name (groups are recorded, not compared).
 */
export const Principal = z.object({
  name: z.string().min(1).max(200),
  groups: z.array(z.string().max(200)).max(50).optional(),
});
export type Principal = z.infer<typeof Principal>;

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
  /** Inline turns: the last ended turn's result, for `turnResult` (after a continue-as-new too). */
  lastResult?: { turnId: string; result: TurnResult };
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
  /**
   * Run each turn inside the session's own workflow instead of as a child `agentTurn` workflow: a turn
   * costs about what a bare Temporal turn does. Its id is `<session id>#turn-<n>`, and clients address
   * it through the session (TillerClient and the CLI do from the id; docs/sessions.md).
   */
  inlineTurns: z.boolean().optional(),
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

/** A turn of a session of inline turns, named (`turnResult`, `cancelTurn`). */
export const TurnRef = z.strictObject({ turnId: z.string().min(1).max(1000) });
export type TurnRef = z.infer<typeof TurnRef>;

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
