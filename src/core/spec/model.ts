/**
 * The model activity's input and answer (part of the plain-JSON spec, src/core/spec/index.ts), and the
 * conversation it reads by reference through the turn's `conversation` query.
 */

import type { ModelSettings } from '../model-settings';
import type { OutputCheck, OutputSpec } from './agent';
import type { AssistantMessage, ChatMessage, ModelApi } from './messages';
import type { ToolSpec } from './tools';

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
  /** `ModelRetrySpec.firstToken` in ms (absent: the default, `DEFAULT_FIRST_TOKEN_MS`). */
  firstTokenMs?: number;
  /**
   * Tools whose calls in the response the activity checks (`ModelResponse.argChecks`): the agent's gated
   * worker tools without a preview, so a human is asked only about arguments the tool would take.
   */
  checkArgs?: string[];
}

/** A call's arguments checked as `previewTool` checks them (JSON, then the tool's schema). */
export type ArgCheck = { ok: true } | { ok: false; error: string };

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
  /**
   * By the index of `message.tool_calls`: each call of a tool in `ModelRequest.checkArgs` checked, or
   * `null` (not asked for, or not a tool this worker defines). Absent when no call was checked.
   */
  argChecks?: (ArgCheck | null)[];
}
