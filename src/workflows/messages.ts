/**
 * The turn's message names: the wire contract (DESIGN.md §3) shared by the workflow and every
 * client. Other-language clients use the same strings: query `state`, update/signal `decide`.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ConversationRequest, ConversationSnapshot } from '../core/conversation';
import type { Decision, RecordedDecision, TurnState } from '../core/schemas';

export const WORKFLOW_TYPE_TURN = 'agentTurn';

export const stateQuery = defineQuery<TurnState>('state');
export const decideUpdate = defineUpdate<RecordedDecision, [Decision]>('decide');
export const decideSignal = defineSignal<[Decision]>('decide');
/** The conversation so far and the tools, for the model activity (src/core/conversation.ts). */
export const conversationQuery = defineQuery<ConversationSnapshot, [ConversationRequest]>('conversation');

export const STATE_DESCRIPTION =
  'The turn as it stands: status, pending approvals, every tool call with timing and decision, token usage and recent events.';
export const DECIDE_DESCRIPTION =
  'Approve or deny a pending tool call: {"id": "<tool call id from pendingApprovals>", "approved": true|false, "reason"?: "...", "scope"?: "once"|"turn"|"session", "approver"?: "name"}.';
export const CONVERSATION_DESCRIPTION =
  'The messages of the conversation so far (the first `count` with {"count": n}) and the tools, as the model activity sends them.';
