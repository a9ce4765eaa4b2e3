/**
 * What hooks see (part of the plain-JSON spec, src/core/spec/index.ts): a tool call or an answer, an
 * approval hook's verdict, a pending approval and how it was resolved, and a hook's failure.
 */

import type { RecordedDecision } from '../schemas';

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
