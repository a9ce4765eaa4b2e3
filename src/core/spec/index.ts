/**
 * Plain-JSON shapes that cross from the worker (where agents, tools and hooks live as code) into
 * workflow code and back. The workflow only ever sees these, recorded in history by the
 * `startTurn` activity, so replay never depends on the worker's current configuration.
 *
 * The entry of the spec: each group lives in its own module — approval gates (gates.ts), tools
 * (tools.ts), the agent (agent.ts), conversation messages (messages.ts), the model
 * activity (model.ts), what hooks see (hooks.ts), the tool activities (tool-calls.ts)
 * and the turn-level activities (activities.ts).
 */

export type {
  GuardrailRequest,
  GuardrailResponse,
  HandoffContext,
  HandoffRequest,
  HandoffResponse,
  StartTurnRequest,
  StartTurnResponse,
  SummaryRequest,
  SummaryResponse,
} from './activities';
export type {
  AgentSpec,
  ContextWindowSpec,
  GuardrailSpec,
  Limits,
  ModelRetrySpec,
  OutputCheck,
  OutputSpec,
} from './agent';
export { ANSWER_TOOL, type DurationLike, type EscalationSpec, type GateSpec } from './gates';
export type {
  AnswerContext,
  ApprovalOutcome,
  ApprovalPendingContext,
  ApprovalReceipt,
  ApprovalResolvedContext,
  HookFailure,
  ToolCallContext,
} from './hooks';
export type { AssistantMessage, ChatMessage, ModelApi, ResponsesState } from './messages';
export type {
  ArgCheck,
  ConversationRef,
  ConversationRequest,
  ConversationSnapshot,
  ModelRequest,
  ModelResponse,
} from './model';
export type {
  ApproveToolResponse,
  PreviewRequest,
  PreviewResponse,
  RunToolRequest,
  RunToolResponse,
  ValidateArgsRequest,
  ValidateArgsResponse,
} from './tool-calls';
export type { McpToolOrigin, ToolSpec } from './tools';
