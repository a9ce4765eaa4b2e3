/**
 * The wire: what crosses a process between Tiller and anything else — the zod schemas of inputs,
 * results, decisions and state; the turn's events and the reducer that folds them into state; the
 * workflow, query, update and signal names; the search attributes. For tools, dashboards and clients
 * in other languages (the names and JSON shapes are what a Python or Go client sends and reads).
 *
 * @module
 */
export * from './schemas';
export { EVENT_TYPES, type TurnEvent, type TurnEventBody, type TurnEventType } from './state/events';
export { createTurnState, eventsSince, foldEvent, type TurnState } from './state';
export { FailureType, MODEL_ERRORS_NOT_RETRIED, describeFailure, turnResultOf } from './failures';
export { argsDigest, canonicalJson } from './digest';
export type { AgentSpec, ApprovalOutcome, ChatMessage, DurationLike, GateSpec, ToolCallContext } from './spec';
export {
  decideSignal,
  decideUpdate,
  revokeTrustUpdate,
  SEARCH_ATTRIBUTES,
  sendUpdate,
  sessionStateQuery,
  stateQuery,
  TillerAgent,
  TillerPendingTools,
  TillerSession,
  TillerStatus,
  WORKFLOW_TYPE_SESSION,
  WORKFLOW_TYPE_TURN,
  type AgentSessionWorkflow,
  type AgentTurnWorkflow,
  type TillerActivities,
} from './contract';
