/**
 * The turn's message names: the wire contract (DESIGN.md §3) shared by the workflow and every
 * client. Other-language clients use the same strings: query `state`, update/signal `decide`.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Decision, RecordedDecision, TurnState } from '../core/schemas';

export const WORKFLOW_TYPE_TURN = 'agentTurn';

export const stateQuery = defineQuery<TurnState>('state');
export const decideUpdate = defineUpdate<RecordedDecision, [Decision]>('decide');
export const decideSignal = defineSignal<[Decision]>('decide');

export const STATE_DESCRIPTION =
  'The turn as it stands: status, pending approvals, every tool call with timing and decision, token usage and recent events.';
export const DECIDE_DESCRIPTION =
  'Approve or deny a pending tool call: {"id": "<tool call id from pendingApprovals>", "approved": true|false, "reason"?: "...", "scope"?: "once"|"turn"|"session", "approver"?: "name"}.';
