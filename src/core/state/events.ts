/**
 * The events a turn emits. Every change to `TurnState` is one of these, folded by `foldEvent`
 * (index.ts), so the state query, the event stream and hook observers all see the same facts.
 */
import type { ModelSettings } from '../model-settings';
import type { PendingApproval, RecordedDecision, TurnStatus, Usage } from '../schemas';

interface Base {
  /** Monotonic per turn, starting at 1. */
  seq: number;
  /** Workflow time (deterministic), ISO-8601. */
  at: string;
}

/** What a turn event says, by `type` (a {@link TurnEvent} without its sequence number and time). */
export type TurnEventBody =
  | {
      type: 'AGENT_STARTED';
      agent: string;
      input: string;
      model: string;
      tools: string[];
      /** The agent's model settings, when it has any. */
      modelSettings?: ModelSettings;
    }
  | {
      type: 'MODEL_CALLED';
      call: number;
      usage: Omit<Usage, 'modelCalls'>;
      durationMs: number;
      /** The calls the model asked for, in its order; each gets a `toolCalls` record right away. */
      toolCalls: { id: string; name: string; args: unknown }[];
      finishReason?: string;
      /** The text the model returned (null: none); absent in histories from before v0.3. */
      text?: string | null;
      /** The server reported no usage: `usage` is Tiller's estimate (about 4 characters a token). */
      usageEstimated?: true;
      /** Reasoning text the server sent beside the answer (clipped); the model never gets it back. */
      reasoning?: string;
      /** The model refused to answer: its words (clipped). */
      refusal?: string;
      /** The model API that answered, when it was not Chat Completions. */
      api?: 'responses';
    }
  | {
      type: 'APPROVAL_REQUESTED';
      toolCallId: string;
      tool: string;
      args: unknown;
      argsDigest: string;
      expiresAt?: string;
      approvers?: string[];
      escalatesTo?: string[];
      preview?: string;
    }
  | { type: 'APPROVAL_REMINDED'; toolCallId: string; tool: string; reminder: number }
  | { type: 'APPROVAL_ESCALATED'; toolCallId: string; tool: string; approvers: string[]; expiresAt?: string }
  | { type: 'TOOL_APPROVED'; toolCallId: string; tool: string; args: unknown; decision: RecordedDecision }
  | {
      type: 'TOOL_DENIED';
      toolCallId: string;
      tool: string;
      args: unknown;
      reason?: string;
      result: string;
      decision?: RecordedDecision;
    }
  | { type: 'APPROVAL_TIMED_OUT'; toolCallId: string; tool: string; result: string }
  | { type: 'TRUST_GRANTED'; tool: string; scope: 'turn' | 'session'; approver?: string }
  | { type: 'TOOL_STARTED'; toolCallId: string; tool: string; args: unknown }
  | { type: 'TOOL_ENDED'; toolCallId: string; tool: string; durationMs: number; result: string }
  | { type: 'TOOL_FAILED'; toolCallId: string; tool: string; args: unknown; durationMs?: number; error: string }
  | { type: 'HOOK_FAILED'; hook: string; hookName?: string; toolCallId?: string; error: string }
  | { type: 'DECISION_REJECTED'; via: 'update' | 'signal'; reason: string; id?: string; approver?: string }
  | {
      type: 'SUBAGENT_STARTED';
      toolCallId: string;
      tool: string;
      agent: string;
      /** The child turn's workflow id. */
      childTurnId: string;
      inherit: boolean;
    }
  | { type: 'SUBAGENT_PROGRESS'; childTurnId: string; status: TurnStatus; pendingApprovals: PendingApproval[] }
  | {
      type: 'SUBAGENT_ENDED';
      toolCallId: string;
      childTurnId: string;
      status: 'completed' | 'failed' | 'cancelled';
      /** The child's usage, added to this turn's totals (once: this event is recorded once). */
      usage: Usage;
      error?: string;
    }
  /** The answer did not match the agent's output schema: sent back to the model (`attempt` of `maxRetries`) or the turn fails. */
  | { type: 'OUTPUT_INVALID'; call: number; attempt: number; error: string }
  /** `parsed`: the answer as the output schema parsed it (structured output only). */
  /** A guardrail ran on the turn's input or its answer; `tripped` ends the turn `GuardrailTripped`. */
  | {
      type: 'GUARDRAIL_RAN';
      name: string;
      kind: 'input' | 'output';
      tripped: boolean;
      durationMs?: number;
      /** What the guardrail returned beside its verdict (bounded JSON). */
      info?: unknown;
      /** It failed (threw, timed out) after its retries: counted as tripped (fail closed). */
      error?: string;
      /** A guardrail agent: the agent that checked, and its model call (counted in the turn's usage). */
      agent?: string;
      usage?: Omit<Usage, 'modelCalls'>;
    }
  /** The model handed the conversation to another agent, which runs the rest of the turn. */
  | { type: 'HANDOFF'; toolCallId: string; from: string; to: string; reason?: string }
  /** The conversation was over the agent's context window: its oldest messages were dropped, or summarised. */
  | {
      type: 'CONTEXT_TRIMMED';
      strategy: 'trim' | 'summarize';
      /** Messages dropped (or replaced by the summary), oldest first; the system prompt is never among them. */
      dropped: number;
      /** Estimated prompt tokens before and after (from the provider's own count of the last call). */
      tokensBefore: number;
      tokensAfter: number;
      summary?: string;
      /** The summary's model call (counted in the turn's usage as a model call). */
      usage?: Omit<Usage, 'modelCalls'>;
      /** The server had refused the prompt as too long (with its count, when it gave one); the call is asked again. */
      refused?: { promptTokens?: number };
    }
  | { type: 'TURN_COMPLETED'; output: string; parsed?: unknown }
  | { type: 'TURN_FAILED'; error: string }
  | { type: 'TURN_CANCELLED'; reason?: string };

/** One event of a turn (`AGENT_STARTED`, `MODEL_CALLED`, `TOOL_STARTED`, …), numbered by `seq`, folded into its state. */
export type TurnEvent = Base & TurnEventBody;
/** The type of a turn event. */
export type TurnEventType = TurnEventBody['type'];

/** Every turn event type. */
export const EVENT_TYPES: readonly TurnEventType[] = [
  'AGENT_STARTED',
  'MODEL_CALLED',
  'APPROVAL_REQUESTED',
  'APPROVAL_REMINDED',
  'APPROVAL_ESCALATED',
  'TOOL_APPROVED',
  'TOOL_DENIED',
  'APPROVAL_TIMED_OUT',
  'TRUST_GRANTED',
  'TOOL_STARTED',
  'TOOL_ENDED',
  'TOOL_FAILED',
  'HOOK_FAILED',
  'DECISION_REJECTED',
  'SUBAGENT_STARTED',
  'SUBAGENT_PROGRESS',
  'SUBAGENT_ENDED',
  'OUTPUT_INVALID',
  'GUARDRAIL_RAN',
  'HANDOFF',
  'CONTEXT_TRIMMED',
  'TURN_COMPLETED',
  'TURN_FAILED',
  'TURN_CANCELLED',
];
