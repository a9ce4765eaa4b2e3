/**
 * Cheaper reads of a turn than its whole `state` (every tool call with its result, the last 500
 * events: hundreds of KB on a long turn): the `summary` query — what lists, inboxes and decisions
 * need — and the `events` query — the events after a seq, a page at a time, for followers that
 * already have the earlier ones. Both are folded from the state on demand; pure (runs in the workflow
 * sandbox), and the same functions answer for turns on older code from their `state`.
 */
import { boundJson, BOUNDS, jsonBytes } from './bounds';
import type { TurnEvent } from './state/events';
import type { PendingApproval, TrustGrant, TurnStatus, Usage } from './schemas';
import type { TurnState } from './state';

/** The turn in brief: no events, no tool call records. */
export interface TurnSummary {
  version: number;
  turnId: string;
  agent: string;
  sessionId?: string;
  /** Who started the turn, when the client said. */
  startedBy?: string;
  status: TurnStatus;
  /** What waits for a human in this turn (sub-agents' waits are on their own turns: `openChildren`). */
  pendingApprovals: PendingApproval[];
  usage: Usage;
  trust: TrustGrant[];
  /** Seq of the newest event (= events emitted so far): where a follower resumes. */
  lastSeq: number;
  counts: {
    events: number;
    toolCalls: number;
    /** Tool calls by status (`running`, `awaiting_approval`, `succeeded`, `failed`, `denied`, …). */
    toolCallsByStatus: Record<string, number>;
    subAgents: number;
  };
  /** Sub-agent turns still open (their pending approvals are decided on them). */
  openChildren: string[];
  error?: string;
}

export interface EventsRequest {
  /** Events with a seq above this one (default 0: from the oldest the turn still holds). */
  afterSeq?: number;
  /**
   * At most this many (default and maximum {@link MAX_EVENTS_PAGE}); a page also stops before it
   * would pass `BOUNDS.stateBytes` (at least one event per page: each is bounded by the recorder).
   */
  limit?: number;
}

export interface EventsPage {
  /** The turn the page is of (a session of inline turns answers for its running or last turn). */
  turnId?: string;
  status: TurnStatus;
  /** The next events after `afterSeq`, oldest first. */
  events: TurnEvent[];
  /** Seq of the newest event of the turn. */
  lastSeq: number;
  /**
   * Seq of the oldest event the turn still holds (it keeps the newest 500): a follower that asked for
   * less than this has missed events in between. 0 before the first event.
   */
  oldestSeq: number;
  /** More events follow this page: ask again with the last event's seq. */
  more: boolean;
}

export const MAX_EVENTS_PAGE = BOUNDS.eventsPage;

/**
 * The summary of a turn, under `BOUNDS.stateBytes` like the state: its parts are bounded already (the
 * recorder clips what it keeps), but many pending approvals with large arguments could add up — then
 * their arguments are shown shorter.
 */
export function summaryOf(state: TurnState, maxBytes: number = BOUNDS.stateBytes): TurnSummary {
  const summary = summarize(state);
  if (jsonBytes(summary) <= maxBytes) return summary;
  for (const limit of [BOUNDS.text, 200, 20]) {
    summary.pendingApprovals = state.pendingApprovals.map((p) => ({ ...p, args: boundJson(p.args, limit) }));
    if (jsonBytes(summary) <= maxBytes) return summary;
  }
  summary.pendingApprovals = summary.pendingApprovals.map((p) => ({ ...p, args: '[…]' }));
  return summary;
}

function summarize(state: TurnState): TurnSummary {
  const byStatus: Record<string, number> = {};
  for (const call of state.toolCalls) byStatus[call.status] = (byStatus[call.status] ?? 0) + 1;
  const children = Object.values(state.children ?? {});
  return {
    version: state.version,
    turnId: state.turnId,
    agent: state.agent,
    ...(state.sessionId !== undefined && { sessionId: state.sessionId }),
    ...(state.startedBy !== undefined && { startedBy: state.startedBy }),
    status: state.status,
    pendingApprovals: state.pendingApprovals,
    usage: state.usage,
    trust: state.trust,
    lastSeq: state.eventCount,
    counts: {
      events: state.eventCount,
      toolCalls: state.toolCalls.length,
      toolCallsByStatus: byStatus,
      subAgents: children.length,
    },
    openChildren: children.filter((c) => c.endedAt === undefined).map((c) => c.turnId),
    ...(state.error !== undefined && { error: state.error }),
  };
}

/** A malformed request (any Temporal client may send one) reads as from the oldest event, a full page. */
export function eventsPage(
  state: TurnState,
  req: EventsRequest = {},
  maxBytes: number = BOUNDS.stateBytes,
): EventsPage {
  const afterSeq = Math.max(0, Math.floor(Number(req?.afterSeq) || 0));
  const limit = Math.min(MAX_EVENTS_PAGE, Math.max(1, Math.floor(Number(req?.limit) || MAX_EVENTS_PAGE)));
  const { events } = state;
  // Seqs are consecutive in the ring: index of the first event after `afterSeq` without a scan.
  const oldestSeq = events[0]?.seq ?? 0;
  const start = oldestSeq === 0 ? 0 : Math.max(0, Math.min(events.length, afterSeq + 1 - oldestSeq));
  const page: TurnEvent[] = [];
  let bytes = 0;
  for (let i = start; i < events.length && page.length < limit; i++) {
    bytes += jsonBytes(events[i]) + 1;
    if (page.length > 0 && bytes > maxBytes) break;
    page.push(events[i]!);
  }
  return {
    turnId: state.turnId,
    status: state.status,
    events: page,
    lastSeq: state.eventCount,
    oldestSeq,
    more: start + page.length < events.length,
  };
}
