/**
 * The turn state's shape, and a turn's state before its first event. The reducer (index.ts) and the
 * folds of each event family (state-*.ts) share it.
 */
import type { TurnEvent, TurnEventType } from './events';
import type { ModelSettings } from '../model-settings';
import {
  emptyUsage,
  WIRE_VERSION,
  type PendingApproval,
  type SubAgentRun,
  type ToolCallRecord,
  type TrustGrant,
  type TurnStatus,
  type Usage,
} from '../schemas';

/** A turn as the `state` query answers it: everything its events have said, folded. */
export interface TurnState {
  version: number;
  status: TurnStatus;
  agent: string;
  turnId: string;
  sessionId?: string;
  /** Who started the turn, when the client said (TurnInput.startedBy). */
  startedBy?: string;
  pendingApprovals: PendingApproval[];
  toolCalls: ToolCallRecord[];
  trust: TrustGrant[];
  usage: Usage;
  events: TurnEvent[];
  /** Total events ever emitted; `events` keeps only the newest ones. */
  eventCount: number;
  /** Sub-agents started by this turn, by child turn id; absent until the first one starts. */
  children?: Record<string, SubAgentRun>;
  output?: string;
  error?: string;
  /** A structured answer, parsed by the agent's output schema (`TURN_COMPLETED`). */
  parsed?: unknown;
  /** The model settings the turn runs with (from `AGENT_STARTED`), when the agent has any. */
  modelSettings?: ModelSettings;
  /** The guardrails that ran (`GUARDRAIL_RAN`), in order; absent until one runs. */
  guardrails?: GuardrailRun[];
  /** The agents that had the turn before `agent`, oldest first (`HANDOFF`); absent without a handoff. */
  handedOffFrom?: string[];
  /** What the context window cost the conversation (`CONTEXT_TRIMMED`), summed; absent until trimmed. */
  context?: { dropped: number; summary?: string };
}

/** One guardrail run as `state` shows it. */
export interface GuardrailRun {
  name: string;
  kind: 'input' | 'output';
  tripped: boolean;
  at: string;
  durationMs?: number;
  info?: unknown;
  error?: string;
  /** A guardrail agent: the agent that checked (its tokens are in the turn's usage). */
  agent?: string;
}

/** The events of the given types, as a fold of one event family takes them. */
export type TurnEventOf<T extends TurnEventType> = Extract<TurnEvent, { type: T }>;

export const DEFAULT_MAX_EVENTS = 500;

/** A turn's state before its first event: running, nothing called, no usage. */
export function createTurnState(init: {
  turnId: string;
  agent: string;
  sessionId?: string;
  startedBy?: string;
  trust?: TrustGrant[];
}): TurnState {
  return {
    version: WIRE_VERSION,
    status: 'running',
    agent: init.agent,
    turnId: init.turnId,
    ...(init.sessionId !== undefined && { sessionId: init.sessionId }),
    ...(init.startedBy !== undefined && { startedBy: init.startedBy }),
    pendingApprovals: [],
    toolCalls: [],
    trust: [...(init.trust ?? [])],
    usage: emptyUsage(),
    events: [],
    eventCount: 0,
  };
}
