/**
 * Plain-JSON shapes that cross from the worker (where agents, tools and hooks live as code) into
 * workflow code and back. The workflow only ever sees these, recorded in history by the
 * `startTurn` activity, so replay never depends on the worker's current configuration.
 *
 * The entry of the spec: each group lives in its own module — approval gates (spec-gates.ts), tools
 * (spec-tools.ts), the agent (spec-agent.ts), conversation messages (spec-messages.ts), the model
 * activity (spec-model.ts), what hooks see (spec-hooks.ts), the tool activities (spec-tool-calls.ts)
 * and the turn-level activities (spec-activities.ts).
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
} from './spec-activities';
export type {
  AgentSpec,
  ContextWindowSpec,
  GuardrailSpec,
  Limits,
  ModelRetrySpec,
  OutputCheck,
  OutputSpec,
} from './spec-agent';
export { ANSWER_TOOL, type DurationLike, type EscalationSpec, type GateSpec } from './spec-gates';
export type {
  AnswerContext,
  ApprovalOutcome,
  ApprovalPendingContext,
  ApprovalReceipt,
  ApprovalResolvedContext,
  HookFailure,
  ToolCallContext,
} from './spec-hooks';
export type { AssistantMessage, ChatMessage, ModelApi, ResponsesState } from './spec-messages';
export type {
  ConversationRef,
  ConversationRequest,
  ConversationSnapshot,
  ModelRequest,
  ModelResponse,
} from './spec-model';
export type {
  ApproveToolResponse,
  PreviewRequest,
  PreviewResponse,
  RunToolRequest,
  RunToolResponse,
  ValidateArgsRequest,
  ValidateArgsResponse,
} from './spec-tool-calls';
export type { McpToolOrigin, ToolSpec } from './spec-tools';
