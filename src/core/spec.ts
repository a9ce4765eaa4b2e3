/**
 * Plain-JSON shapes that cross from the worker (where agents, tools and hooks live as code) into
 * workflow code and back. The workflow only ever sees these, recorded in history by the
 * `startTurn` activity, so replay never depends on the worker's current configuration.
 */

import type { Duration } from '@temporalio/common';
import type { ModelSettings } from './model-settings';
import type { RecordedDecision } from './schemas';

/** A Temporal duration: milliseconds or a string such as `"3 days"`, `"90s"` (type only; no runtime import). */
export type DurationLike = Duration;

/** Who may decide, and for how long, once a gate has expired: a second stage with its own approvers. */
export interface EscalationSpec {
  /** Approver names, or groups as `group:<name>`; an empty list: nobody (the call can only expire). */
  approvers: string[];
  timeout?: DurationLike;
  remindEvery?: DurationLike;
}

/** The pseudo-tool under which an answer gate's approval shows (`defineAgent({ approveAnswer })`). */
export const ANSWER_TOOL = 'final_answer';

/** A tool's approval gate (`defineAgent({ approvals })`): deadline, reminders, escalation, who may decide. */
export interface GateSpec {
  /** How long a human has to decide; no timeout when absent. */
  timeout?: DurationLike;
  /** Fire the `onApprovalPending` hooks this often while the call waits (a durable timer). */
  remindEvery?: DurationLike;
  /** At the deadline: deny (status `timed_out`, the default) or escalate to other approvers. */
  onTimeout?: 'deny' | { escalate: EscalationSpec };
  /** Who may decide: approver names, or groups as `group:<name>`. Anyone when absent; nobody when empty. */
  approvers?: string[];
  /** Trust grants (`scope: "turn" | "session"`) never apply to this tool. */
  neverTrust?: boolean;
  /** The turn's starter (`startedBy`) may approve its own call. Default false: someone else must. */
  allowSelfApproval?: boolean;
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments, generated from the tool's zod schema. */
  parameters: Record<string, unknown>;
  /** Start-to-close timeout of one attempt of this tool's activity. */
  timeout?: DurationLike;
  heartbeatTimeout?: DurationLike;
  /** The tool can show an approver what a call would do before it is approved. */
  preview?: boolean;
  /** Run as a local activity, or (`false`) never (see `ToolDefinition.local`); absent: decided by `readOnly`. */
  local?: boolean;
  /** The tool only reads (`ToolDefinition.readOnly`): the fast path runs it as a local activity. */
  readOnly?: boolean;
  /** Not a worker tool but a sub-agent: calling it runs `agent` as a child `agentTurn`. */
  subAgent?: { agent: string; inherit: boolean };
  /** Not a worker tool but a handoff: calling it gives the rest of the turn to `agent`. */
  handoff?: { agent: string };
  /** A tool of an MCP server, listed by `startTurn` and called through the worker's MCP client. */
  mcp?: McpToolOrigin;
}

/** Where an MCP tool comes from, and the hints its server gave (recorded as listed). */
export interface McpToolOrigin {
  server: string;
  /** The tool's name on its server (the spec's `name` is `<server>__<tool>`). */
  tool: string;
  annotations?: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

export interface Limits {
  /** Stop the turn once its model calls have used more tokens than this. */
  turnTokens?: number;
  /** Tool arguments longer than this (characters of JSON) fail without running the tool. */
  maxToolArgChars: number;
  /** Tool results longer than this are cut, with a marker, before they reach history or the model. */
  maxToolResultChars: number;
}

/** Structured output (`defineAgent({ output })`): the JSON Schema the answer must match, from the agent's zod schema. */
export interface OutputSpec {
  /** `response_format.json_schema.name`. */
  name: string;
  schema: Record<string, unknown>;
  /** Sent as `strict`: true when the schema fits OpenAI's strict mode (every property required, no extras). */
  strict: boolean;
  /** Invalid answers sent back to the model with the validation error before the turn fails `InvalidOutput`. */
  maxRetries: number;
}

/** The model activity's check of an answer against the agent's output schema (`ok` like the other checks). */
export type OutputCheck = { ok: true; value: unknown } | { ok: false; error: string };

/** The agent as a turn runs it, recorded in history when the turn starts (`startTurn`), so replay never asks the worker again. */
export interface AgentSpec {
  name: string;
  instructions: string;
  model: string;
  /** The worker's named provider to call (its name only: the key stays in the worker); absent: the default. */
  provider?: string;
  /** The model API to speak; absent: the provider's choice, else Chat Completions. */
  api?: ModelApi;
  /** A cut answer (`finish_reason: length`): fail the turn (absent: the default) or accept it as it is. */
  onTruncated?: 'fail' | 'accept';
  tools: ToolSpec[];
  /** Tools that need a human decision, by name. */
  gates: Record<string, GateSpec>;
  /** Which effectful hooks exist, so the workflow schedules only the activities it needs. */
  hooks: {
    approveTool: boolean;
    onAgentStart: boolean;
    onToolStart: boolean;
    onToolEnd: boolean;
    onApprovalPending?: boolean;
    /** Absent in specs recorded before `onApprovalResolved` existed. */
    onApprovalResolved?: boolean;
    /** Absent in specs recorded before answer gates existed. */
    approveAnswer?: boolean;
  };
  maxModelCalls: number;
  /** Guardrails (OWASP LLM06/LLM10); absent in specs recorded before 0.2, which then run unlimited. */
  limits?: Limits;
  stream: boolean;
  /** Sent on every model call (validated by `defineAgent`); absent in specs recorded before they existed. */
  modelSettings?: ModelSettings;
  /** Answer gate: a human approves the final answer (shown as the pseudo-tool `final_answer`). */
  answerGate?: GateSpec;
  /** Structured output: the answer is JSON matching this schema (absent: free text). */
  output?: OutputSpec;
  /** Whether the Tiller search attributes are registered on this namespace. */
  searchAttributes: boolean;
  /** `false`: this deployment takes decisions by update only (absent: the signal decides too). */
  decideSignal?: boolean;
  /** Agents whose gates and hooks were merged into this spec (a sub-agent with `inherit: true`). */
  inherits?: string[];
  /** Guardrails by name (their functions stay in the worker); absent: none. */
  guardrails?: { input?: GuardrailSpec[]; output?: GuardrailSpec[] };
  /** Handoffs in the turn before this agent took it over, at most `MAX_HANDOFFS` (absent: the default). */
  maxHandoffs?: number;
  /** The conversation's budget in tokens, and what to do when the next call would pass it; absent: none. */
  contextWindow?: ContextWindowSpec;
}

/** A guardrail as the workflow knows it: its name, and how it runs. */
export interface GuardrailSpec {
  name: string;
  /** Input guardrails: `blocking` (before the first model call) or `parallel` (beside it; tools wait for it). */
  mode?: 'blocking' | 'parallel';
  /** Start-to-close timeout of one attempt (default 30 seconds). */
  timeout?: DurationLike;
}

export interface ContextWindowSpec {
  /** Tokens the prompt may take, counted as the provider counted the last call. */
  tokens: number;
  /** `trim`: drop the oldest messages; `summarize`: replace them with a summary the model writes. */
  strategy: 'trim' | 'summarize';
}

/** The `runGuardrail` activity's input. */
export interface GuardrailRequest {
  agent: string;
  name: string;
  kind: 'input' | 'output';
  turnId: string;
  sessionId?: string;
  input: string;
  /** Output guardrails: the answer (and its parsed value, with structured output). */
  output?: { text: string; parsed?: unknown };
}

/** What a guardrail said: `tripwire` ends the turn; `info` is recorded, bounded. */
export interface GuardrailResponse {
  tripwire: boolean;
  info?: unknown;
  durationMs: number;
  /** A guardrail agent: its name, and its model call's tokens. */
  agent?: string;
  usage?: ModelResponse['usage'];
}

/** The `handOff` activity's input: the turn moves from `from` to `to`. */
export interface HandoffRequest {
  from: string;
  to: string;
  turnId: string;
  sessionId?: string;
  input: string;
  toolCallId: string;
  /** The conversation so far (for the handoff's input filter), by reference like a model call's. */
  conversation?: ConversationRef;
}

export interface HandoffResponse {
  spec: AgentSpec;
  hookFailures: HookFailure[];
  /** The conversation after the handoff's input filter (absent: no filter; the conversation carries over). */
  messages?: ChatMessage[];
}

/** The `summarizeConversation` activity's input: the messages to summarise, inline and bounded. */
export interface SummaryRequest {
  model: string;
  provider?: string;
  api?: ModelApi;
  turnId: string;
  messages: ChatMessage[];
  /** The summary's budget in tokens (it is clipped to about four characters a token). */
  maxTokens: number;
}

export interface SummaryResponse {
  summary: string;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
}

/** Which model API answers an agent: Chat Completions (default, every compatible server) or OpenAI's Responses API. */
export type ModelApi = 'chat' | 'responses';

/**
 * What the Responses API needs to continue from an answer, kept with it in the conversation (Chat
 * Completions never sends it): the response's id, for `previous_response_id` where the provider keeps
 * state, and its reasoning items (opaque, with `encrypted_content`), sent back where it does not.
 */
export interface ResponsesState {
  id?: string;
  reasoning?: unknown[];
}

/** One message of the conversation the model reads (Chat Completions roles). */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
      /** Responses API only; absent from messages of Chat Completions calls. */
      responses?: ResponsesState;
    }
  | { role: 'tool'; tool_call_id: string; content: string };

export type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;

export interface HookFailure {
  hook:
    | 'approveTool'
    | 'approveAnswer'
    | 'onAgentStart'
    | 'onToolStart'
    | 'onToolEnd'
    | 'onApprovalPending'
    | 'onApprovalResolved';
  hookName?: string;
  error: string;
}

export interface StartTurnRequest {
  agent: string;
  input: string;
  turnId: string;
  sessionId?: string;
  /** Agents whose gates and hooks to merge into this agent's (TurnInput.inherit). */
  inherit?: string[];
}

export interface StartTurnResponse {
  spec: AgentSpec;
  hookFailures: HookFailure[];
}

/** A conversation passed to the model activity by reference (src/core/conversation.ts). */
export interface ConversationRef {
  /** Messages in the conversation at the time of the call (a prefix of what the query returns later). */
  count: number;
  /** `chain(messages[0..count))`: sha256(previous ‖ canonical JSON of the message), from "" upwards. */
  digest: string;
}

/** The `conversation` query's argument and answer. */
export interface ConversationRequest {
  count: number;
  /** Only messages [from, count): what a model activity holding the earlier ones needs (default 0). */
  from?: number;
  /** `false`: leave out the tools (the activity has them already). */
  tools?: boolean;
}
export interface ConversationSnapshot {
  messages: ChatMessage[];
  /** Echoes the request's `from`; absent from turns on code without it, which always answer from 0. */
  from?: number;
  /** Absent when asked with `tools: false`. */
  tools?: ToolSpec[];
}

export interface ModelRequest {
  model: string;
  /** The worker's named provider (absent: its default client). */
  provider?: string;
  /** The agent's model API (absent: the provider's choice, else Chat Completions). */
  api?: ModelApi;
  /** The conversation, inline (histories from before `conversation-by-reference`) … */
  messages?: ChatMessage[];
  /** … or by reference: the activity reads it with the turn's `conversation` query (src/core/conversation.ts). */
  conversation?: ConversationRef;
  /** Inline with `messages`; with `conversation` the query returns them too. */
  tools?: ToolSpec[];
  stream: boolean;
  turnId: string;
  call: number;
  /** The agent's model settings, sent as Chat Completions fields. */
  settings?: ModelSettings;
  /** Structured output: sent as `response_format`, and an answer is checked against the agent's schema. */
  output?: OutputSpec & { agent: string };
}

export interface ModelResponse {
  message: AssistantMessage;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
  /**
   * Where the usage numbers came from: streamed chunks, the final response body, Tiller's estimate (the
   * server reported none: about 4 characters a token), or nowhere (histories from before estimates).
   */
  usageSource: 'stream' | 'response' | 'estimated' | 'none';
  /** Absent only in histories from before 0.3 (always set since: the server's, or inferred from the calls). */
  finishReason?: string;
  /** Reasoning text the server sent beside the answer, clipped; never sent back to the model. */
  reasoning?: string;
  /** The model refused to answer (Chat Completions' `refusal`, a Responses refusal): its words, clipped. */
  refusal?: string;
  /** The API that answered (absent: Chat Completions). */
  api?: ModelApi;
  durationMs: number;
  /** With `output` and no tool calls: the answer parsed and validated, or why it is invalid. */
  output?: OutputCheck;
}

/** A tool call as hooks see it: the agent, the turn, the call's id, the tool and its arguments. */
export interface ToolCallContext {
  agent: string;
  turnId: string;
  workflowId: string;
  toolCallId: string;
  tool: string;
  args: unknown;
  /** A sub-agent with `inherit: true`: the agents whose hooks also apply to this call (nearest first). */
  inheritsFrom?: string[];
}

/** What an `approveAnswer` hook decides on: the turn's final answer. */
export interface AnswerContext {
  agent: string;
  turnId: string;
  workflowId: string;
  /** The answer's id at the desk (`answer-<model call>`), should a human be asked. */
  answerId: string;
  /** The answer's text. */
  text: string;
  /** Structured output: the parsed answer. */
  parsed?: unknown;
  /** A sub-agent with `inherit: true`: the agents whose hooks also apply (nearest first). */
  inheritsFrom?: string[];
}

/** An approval hook's verdict: `Proceed`, `Deny(reason?)` or `Ask`. */
export type ApprovalOutcome = { action: 'proceed' } | { action: 'deny'; reason?: string } | { action: 'ask' };

export interface ApproveToolResponse {
  outcome: ApprovalOutcome;
  hookFailures: HookFailure[];
}

export interface RunToolRequest extends Omit<ToolCallContext, 'args'> {
  /** The arguments exactly as the model sent them (a JSON string). */
  rawArgs: string;
  /** Cut the result to this many characters (with a marker). */
  maxResultChars?: number;
}

export interface RunToolResponse {
  ok: boolean;
  /** The text the model sees: the tool's result, or `Error: ...` when it failed. */
  content: string;
  error?: string;
  durationMs: number;
  hookFailures: HookFailure[];
}

export interface PreviewRequest extends Omit<ToolCallContext, 'args'> {
  rawArgs: string;
}

/** `ok: false` means the arguments are invalid: the call fails without bothering a human. */
export type PreviewResponse = { ok: true; preview?: string } | { ok: false; error: string };

export interface ValidateArgsRequest {
  tool: string;
  args: unknown;
}

export type ValidateArgsResponse = { ok: true } | { ok: false; error: string };

/** `onApprovalPending`'s context: the waiting call, its digest, which reminder this is, the deadline. */
export interface ApprovalPendingContext {
  call: ToolCallContext;
  /**
   * The pending call's `argsDigest`, exactly as the turn checks it (salted per turn, so only the turn
   * can say it): a decision that carries it applies to these arguments only.
   */
  argsDigest: string;
  /** 0 when the request is raised, then 1, 2, … for each reminder. */
  reminder: number;
  approvers?: string[];
  expiresAt?: string;
  escalated: boolean;
  preview?: string;
}

/** What a hook's `onApprovalPending` returned (e.g. the chat message it posted), kept for its `onApprovalResolved`. */
export interface ApprovalReceipt {
  /** The `name` of the hook that returned it. */
  hook?: string;
  /** Small plain JSON (at most 2,000 characters). */
  value: unknown;
}

/** How a wait for a human ended: approved, denied or timed out, with the decision and the receipts. */
export interface ApprovalResolvedContext {
  call: ToolCallContext;
  /** How the wait ended: a human approved or denied the call, or nobody decided in time. */
  outcome: 'approved' | 'denied' | 'timed_out';
  /** The recorded decision, when a human decided. */
  decision?: RecordedDecision;
  /** What the `onApprovalPending` hooks returned for this call (the newest 20), once they have all run. */
  receipts: ApprovalReceipt[];
}
