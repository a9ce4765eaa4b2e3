/**
 * Tiller's public API: define agents, tools and gates; build a worker; drive turns from a client.
 *
 * Two more entries sit beside this one: `@tiller-agents/tiller/testing` (the scripted model and a local
 * Temporal dev server, to test your own agent offline) and `@tiller-agents/tiller/wire` (the schemas,
 * events, state reducer and message names, for tools and clients in other languages).
 *
 * @packageDocumentation
 */
export { createWorker, type CreateWorkerOptions } from './worker/create-worker';
export { createTillerPlugin, TillerPlugin } from './worker/plugin';
export type { TillerPluginOptions } from './worker/options';
export {
  ensureSearchAttributes,
  SearchAttributesMissingError,
  SearchAttributesMissing,
} from './worker/search-attributes';
export { defineAgent, type AgentDefinition, type InstructionsFn, type SubAgentDefinition } from './agents/define';
export { handoff, type HandoffContext, type HandoffDefinition } from './agents/handoffs';
export {
  guardrailAgent,
  type GuardrailAgentOptions,
  type GuardrailContext,
  type GuardrailVerdict,
  type InputGuardrail,
  type OutputGuardrail,
} from './agents/guardrails';
export { ModelSettings } from './core/model-settings';
export type { TillerHooks } from './agents/hooks';
export { defineTool, type ToolDefinition, type ToolContext } from './tools/define';
export { fileTools } from './tools/files';
export { McpUnavailableError } from './mcp/pool';
export type { McpServerConfig } from './mcp/config';
export { Proceed, Deny, Ask } from './core/policy';
export type {
  ApprovalOutcome,
  ApprovalPendingContext,
  ApprovalResolvedContext,
  GateSpec,
  ToolCallContext,
} from './core/spec';
export { ProviderConfig, ProviderConfigError } from './activities/providers';
export { TillerClient, DecisionRejectedError, type StartTurnOptions, type PendingTurn } from './client';
export { connectClient } from './client/connect';
export { Decision, TurnInput, TurnResult } from './core/schemas';
export type { TurnState } from './core/state';
export type { TurnEvent } from './core/state/events';
export { FailureType, describeFailure } from './core/failures';
export { replayTurns, type ReplayTurnsOptions, type ReplayOutcome } from './worker/replay';
export { slackApprovals, type SlackApprovalsOptions } from './slack';
export { createTracing, type Tracing } from './observability/tracing';
