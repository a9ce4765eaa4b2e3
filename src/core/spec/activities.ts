/**
 * The turn-level activities' inputs and answers (part of the plain-JSON spec, src/core/spec/index.ts):
 * start a turn, run a guardrail, hand off to another agent, summarise the conversation.
 */

import type { AgentSpec } from './agent';
import type { HookFailure } from './hooks';
import type { ChatMessage, ModelApi } from './messages';
import type { ConversationRef, ModelResponse } from './model';

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

/** What `onHandoff` is told: the turn moves from `from` to `to`. */
export interface HandoffContext {
  from: string;
  to: string;
  turnId: string;
  sessionId?: string;
  input: string;
  toolCallId: string;
}

/** The `handOff` activity's input: what `onHandoff` is told, and the conversation. */
export interface HandoffRequest extends HandoffContext {
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
