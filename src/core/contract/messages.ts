/**
 * The wire contract's names: workflow types, queries, updates and signals of a turn and of a session,
 * with the descriptions the Temporal UI shows. Shared by the workflows and every client; clients in
 * other languages use the same strings (query `state`, update or signal `decide`, update `send` …).
 * See docs/architecture.md, "The wire contract".
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  Decision,
  RecordedDecision,
  RevokeTrustInput,
  SendInput,
  SessionInput,
  SessionState,
  TrustGrant,
  TurnInput,
  TurnProgress,
  TurnRef,
  TurnResult,
} from '../schemas';
import type { EventsPage, EventsRequest, TurnSummary } from '../reads';
import type { ConversationRequest, ConversationSnapshot } from '../spec';
import type { TurnState } from '../state';

/** The workflow type of a turn. */
export const WORKFLOW_TYPE_TURN = 'agentTurn';
/** The workflow type of a session (a conversation of turns). */
export const WORKFLOW_TYPE_SESSION = 'agentSession';

/** The workflow functions' signatures, for typed `startChild` / `start` without importing workflow code. */
export type AgentTurnWorkflow = (input: TurnInput) => Promise<TurnResult>;
/** The `agentSession` workflow's signature. */
export type AgentSessionWorkflow = (input: SessionInput) => Promise<SessionState>;

// A turn.
/** The turn as it stands (`TurnState`): status, pending approvals, tool calls, usage, events. */
export const stateQuery = defineQuery<TurnState>('state');
/** The turn in brief (src/core/reads.ts): status, pending approvals, usage, counts; no events, no tool calls. */
export const summaryQuery = defineQuery<TurnSummary>('summary');
/** The events after a seq, a page at a time (src/core/reads.ts). */
export const eventsQuery = defineQuery<EventsPage, [EventsRequest]>('events');
/** Decide a pending call: validated before it is recorded, returns the recorded decision. */
export const decideUpdate = defineUpdate<RecordedDecision, [Decision]>('decide');
/** Decide a pending call, fire-and-forget: a bad decision is recorded as `DECISION_REJECTED`. */
export const decideSignal = defineSignal<[Decision]>('decide');
/** The conversation so far and the tools, for the model activity (src/core/conversation.ts). */
export const conversationQuery = defineQuery<ConversationSnapshot, [ConversationRequest]>('conversation');
/** Sent by a child turn to its parent (its session, or the turn it is a sub-agent of) on each change. */
export const turnProgressSignal = defineSignal<[TurnProgress]>('turnProgress');

export const STATE_DESCRIPTION =
  'The turn as it stands: status, pending approvals, every tool call with timing and decision, token usage and recent events.';
export const SUMMARY_DESCRIPTION =
  'The turn in brief: status, pending approvals, usage, trust, the last event seq, counts of events and tool calls by status, open sub-agent turns.';
export const EVENTS_DESCRIPTION =
  'The events after a seq, oldest first: {"afterSeq": n, "limit"?: 500} → {status, events, lastSeq, oldestSeq, more}.';
export const DECIDE_DESCRIPTION =
  'Approve or deny a pending tool call: {"id": "<tool call id from pendingApprovals>", "approved": true|false, "reason"?: "...", "scope"?: "once"|"turn"|"session", "approver"?: "name"}.';
export const CONVERSATION_DESCRIPTION =
  'The messages of the conversation so far (the first `count` with {"count": n}; only those from index `from` on with {"from": k}) and the tools (unless {"tools": false}), as the model activity sends them.';
export const TURN_PROGRESS_DESCRIPTION =
  'From a child turn: its status, pending approvals and (to a parent turn) usage so far.';

// A session.
/** The session as it stands (`SessionState`): turns, trust, usage, the current turn's pending approvals. */
export const sessionStateQuery = defineQuery<SessionState>('state');
/** The session's next input: starts its next turn and returns the turn id. */
export const sendUpdate = defineUpdate<{ turnId: string }, [SendInput]>('send');
/** Removes a session trust grant from the next turn on; returns the grants left. */
export const revokeTrustUpdate = defineUpdate<TrustGrant[], [RevokeTrustInput]>('revokeTrust');
/**
 * A session of inline turns (`SessionInput.inlineTurns`): the turn's result, once it has ended (the
 * running turn's, or the last one's). The session's `state` is the session's: the turn's is `turnState`.
 */
export const turnResultUpdate = defineUpdate<TurnResult, [TurnRef]>('turnResult');
/** A session of inline turns: the running turn's `state` (the session's own `state` query is the session's). */
export const turnStateQuery = defineQuery<TurnState>('turnState');
/** A session of inline turns: cancels the running turn (named), not the session. */
export const cancelTurnSignal = defineSignal<[TurnRef]>('cancelTurn');

export const SESSION_STATE_DESCRIPTION =
  'The session: its turns, trust grants, usage across turns, and the pending approvals of the current turn.';
export const SEND_DESCRIPTION =
  'Start the next turn: {"input": "..."}. Returns {"turnId"}. Rejected while a turn is still running.';
export const TURN_RESULT_DESCRIPTION =
  'A session of inline turns: the result of a turn, {"turnId": "..."}, when it has ended (the running turn or the last one).';
export const TURN_STATE_DESCRIPTION = 'A session of inline turns: the running (or last) turn as it stands.';
export const CANCEL_TURN_DESCRIPTION = 'A session of inline turns: cancel the running turn, {"turnId": "..."}.';
export const REVOKE_TRUST_DESCRIPTION =
  'Revoke a trust grant: {"tool": "...", "scope"?: "session"}. Takes effect from the next turn. Returns the remaining grants.';
