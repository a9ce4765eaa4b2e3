/**
 * Tiller's public API: define agents, tools and hooks; build a worker; drive turns from a client.
 * Workflow code lives in `tiller/workflows` (bundled by the worker); the scripted model for tests
 * and offline demos in `tiller/testing`.
 */
export {
  createWorker,
  defaultTools,
  PRELOAD_MODULES,
  requireSearchAttributes,
  SearchAttributesMissing,
  workflowsPath,
  type CreateWorkerOptions,
} from './worker';
export { createTillerPlugin, TillerPlugin, type TillerPluginOptions } from './plugin';
export {
  defineAgent,
  type AgentDefinition,
  type InstructionsContext,
  type InstructionsFn,
  type SubAgentDefinition,
} from './agents/define';
export {
  handoff,
  handoffToolName,
  MAX_HANDOFFS,
  type HandoffContext,
  type HandoffDefinition,
  type HandoffEntry,
} from './agents/handoffs';
export {
  guardrailAgent,
  type AgentGuardrail,
  type FunctionGuardrail,
  type GuardrailAgentOptions,
  type GuardrailContext,
  type GuardrailDefinition,
  type GuardrailVerdict,
  type InputGuardrail,
  type InputGuardrailMode,
  type OutputGuardrail,
} from './agents/guardrails';
export { ModelSettings, chatCompletionFields, maxTokensFieldFor } from './core/model-settings';
export type { TillerHooks, AgentStartContext, ToolEndContext, ApprovalResolvedHookContext } from './agents/hooks';
export { assistant } from './agents/assistant';
export { defineTool, type ToolDefinition, type ToolContext } from './tools/define';
export { fileTools, workspaceRoot } from './tools/files';
export {
  slackApprovals,
  slackPostingFromEnv,
  slackInteractionsFromEnv,
  type SlackApprovalsOptions,
  type SlackGatewayOptions,
} from './slack';
export { McpPool, McpUnavailableError, type McpPoolOptions } from './mcp/pool';
export type { McpServerConfig, McpStdioServer, McpHttpServer } from './mcp/config';
export { Proceed, Deny, Ask, DENIED_WITHOUT_REASON, approvalGate } from './core/policy';
/** Builds the activities a Tiller worker registers ({@link TillerActivities}) from their dependencies. */
export { createActivities } from './activities';
export { classifyModelError, openAIFromEnv } from './activities/model';
/**
 * A named OpenAI-compatible model provider (`createWorker({ providers })`, `TILLER_PROVIDERS`): its `baseURL`,
 * and `apiKey` or `apiKeyEnv` (not both).
 */
export { ProviderConfig } from './activities/providers';
export { ProviderConfigError, providerClients, providersFromEnv } from './activities/providers';
export { TillerClient, DecisionRejectedError, type StartTurnOptions, type PendingTurn } from './client';
export { temporalSettings, connectClient, DEFAULT_TASK_QUEUE } from './config';
export { ensureSearchAttributes } from './setup';
export {
  replayTurns,
  isNondeterminism,
  type ReplayTurnsOptions,
  type ReplayOutcome,
  type ReplayVerdict,
} from './replay';
export {
  createTracing,
  tracingFromEnv,
  tracingWorkerOptions,
  WORKFLOW_TRACING_MODULE,
  type Tracing,
} from './observability/tracing';
export { foldEvent, createTurnState, emit, eventsSince, type TurnState } from './core/state';
export { FailureType, MODEL_ERRORS_NOT_RETRIED, describeFailure, turnResultOf } from './core/failures';
export { argsDigest, canonicalJson } from './core/digest';
export * from './core/schemas';
export type { TurnEvent, TurnEventType } from './core/events';
export { EVENT_TYPES } from './core/events';
export type {
  AgentSpec,
  ApprovalOutcome,
  ApprovalPendingContext,
  ApprovalResolvedContext,
  ChatMessage,
  GateSpec,
  ToolCallContext,
  DurationLike,
} from './core/spec';
export {
  stateQuery,
  decideUpdate,
  decideSignal,
  sessionStateQuery,
  sendUpdate,
  revokeTrustUpdate,
  WORKFLOW_TYPE_TURN,
  WORKFLOW_TYPE_SESSION,
  TillerStatus,
  TillerAgent,
  TillerPendingTools,
  TillerSession,
  SEARCH_ATTRIBUTES,
  type TillerActivities,
  type AgentTurnWorkflow,
  type AgentSessionWorkflow,
} from './contract';
