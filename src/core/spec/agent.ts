/**
 * The agent as a turn runs it (part of the plain-JSON spec, src/core/spec/index.ts): recorded in history
 * when the turn starts, with its limits, structured output, guardrails and context window.
 */

import type { ModelSettings } from '../model-settings';
import type { DurationLike, GateSpec } from './gates';
import type { ModelApi } from './messages';
import type { ToolSpec } from './tools';

export interface Limits {
  /** Stop the turn once its model calls have used more tokens than this. */
  turnTokens?: number;
  /** Tool arguments longer than this (characters of JSON) fail without running the tool. */
  maxToolArgChars: number;
  /** Tool results longer than this are cut, with a marker, before they reach history or the model. */
  maxToolResultChars: number;
}

/**
 * How long a model call may take (`defineAgent({ modelRetry })`, or a provider's `retry`): calls are
 * retried by time, not by count (docs/models.md).
 */
export interface ModelRetrySpec {
  /** The whole call, every attempt and the waits between them (schedule-to-close); default 10 minutes. */
  budget?: DurationLike;
  /**
   * How long one attempt may wait for the server's first chunk (a streamed call) or its whole answer
   * (a call with `stream: false`) before it is given up and retried; default 2 minutes.
   */
  firstToken?: DurationLike;
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
  /** How long a model call may take, retries included (the agent's, else its provider's); absent: the defaults. */
  modelRetry?: ModelRetrySpec;
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
  /**
   * `true`: this deployment verifies approvers (the worker's `verifiedApprovers`): a decision without the
   * verified `tillerApprover` header is refused and recorded, its body's `approver` never believed.
   */
  verifiedApprovers?: boolean;
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
