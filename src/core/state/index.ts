/**
 * The turn state reducer: `emit` appends an event to the bounded ring and folds it into the state.
 * Pure and deterministic (runs inside the workflow sandbox); mutates the state object in place
 * because a turn's state is owned by exactly one workflow and copying it per event would be O(n²).
 * The entry of the reducer: each family of events folds in its own module — tool calls
 * (calls.ts), approvals and decisions (approvals.ts), usage and model calls
 * (usage.ts), sub-agents (subagents.ts), guardrails, handoffs and the context window
 * (agents.ts) — the state's shape is types.ts, its byte budget budget.ts.
 */
import type { TurnEvent, TurnEventBody } from './events';
import { foldAgentEvent } from './agents';
import { foldApprovalEvent } from './approvals';
import { abandonOpenCalls, foldToolEvent } from './calls';
import { foldSubAgentEvent } from './subagents';
import { DEFAULT_MAX_EVENTS, type TurnState } from './types';
import { foldModelCall } from './usage';

export { budgetedState, stateBytesAtMost } from './budget';
export { childRun } from './subagents';
export { createTurnState, DEFAULT_MAX_EVENTS, type GuardrailRun, type TurnState } from './types';

/** Appends `body` as the next event (seq, at) and folds it into `state`. Returns the event. */
export function emit(state: TurnState, body: TurnEventBody, at: string, maxEvents = DEFAULT_MAX_EVENTS): TurnEvent {
  const event = { ...body, seq: state.eventCount + 1, at } as TurnEvent;
  state.eventCount = event.seq;
  state.events.push(event);
  if (state.events.length > maxEvents) state.events.splice(0, state.events.length - maxEvents);
  foldEvent(state, event);
  return event;
}

/** Folds one event into the state. Exported for observers and tests; `emit` is the usual entry. */
export function foldEvent(state: TurnState, event: TurnEvent): void {
  switch (event.type) {
    case 'AGENT_STARTED':
      state.status = 'running';
      if (event.modelSettings) state.modelSettings = event.modelSettings;
      break;
    case 'MODEL_CALLED':
      foldModelCall(state, event);
      break;
    case 'APPROVAL_REQUESTED':
    case 'APPROVAL_REMINDED':
    case 'APPROVAL_ESCALATED':
    case 'TOOL_APPROVED':
    case 'TOOL_DENIED':
    case 'APPROVAL_TIMED_OUT':
    case 'TRUST_GRANTED':
      foldApprovalEvent(state, event);
      break;
    case 'TOOL_STARTED':
    case 'TOOL_ENDED':
    case 'TOOL_FAILED':
      foldToolEvent(state, event);
      break;
    case 'HOOK_FAILED':
    case 'DECISION_REJECTED':
      break;
    case 'SUBAGENT_STARTED':
    case 'SUBAGENT_PROGRESS':
    case 'SUBAGENT_ENDED':
      foldSubAgentEvent(state, event);
      break;
    case 'GUARDRAIL_RAN':
    case 'HANDOFF':
    case 'CONTEXT_TRIMMED':
      foldAgentEvent(state, event);
      break;
    case 'TURN_COMPLETED':
      state.status = 'completed';
      state.output = event.output;
      if (event.parsed !== undefined) state.parsed = event.parsed;
      return;
    case 'TURN_FAILED':
      state.status = 'failed';
      state.error = event.error;
      abandonOpenCalls(state, event.at, `not completed: the turn failed (${event.error})`);
      return;
    case 'TURN_CANCELLED':
      state.status = 'cancelled';
      abandonOpenCalls(state, event.at, 'not completed: the turn was cancelled');
      return;
  }
  if (state.status === 'running' || state.status === 'awaiting_approval') {
    state.status = state.pendingApprovals.length > 0 ? 'awaiting_approval' : 'running';
  }
}

/** Events with `seq` greater than `afterSeq` (for followers that poll the state). */
export function eventsSince(state: TurnState, afterSeq: number): TurnEvent[] {
  return state.events.filter((e) => e.seq > afterSeq);
}
