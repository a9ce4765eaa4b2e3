/**
 * Effectful hooks, plugged in per agent (or for every agent on a worker). They run in activities,
 * so they may do I/O. The turn's own observer — the state reducer — runs in the workflow.
 */
import type { ApprovalOutcome, ApprovalPendingContext, ToolCallContext } from '../core/spec';

export interface AgentStartContext {
  agent: string;
  input: string;
  turnId: string;
  sessionId?: string;
}

export interface ToolEndContext extends ToolCallContext {
  result: string;
  durationMs: number;
}

export interface TillerHooks {
  /** Shown in HOOK_FAILED events and logs. */
  name?: string;
  /**
   * The intervention: return `Proceed`, `Deny(reason?)`, `Ask` (pause for a human) or a boolean.
   * A throw counts as a denial (fail closed).
   */
  approveTool?(call: ToolCallContext): ApprovalOutcome | boolean | Promise<ApprovalOutcome | boolean>;
  onAgentStart?(ctx: AgentStartContext): void | Promise<void>;
  /** Only for approved calls, right before the tool runs. */
  onToolStart?(call: ToolCallContext): void | Promise<void>;
  /** Only when the tool succeeded. */
  onToolEnd?(call: ToolEndContext): void | Promise<void>;
  /**
   * A call waits for a human: fired when the request is raised (`reminder: 0`), on every
   * `remindEvery` tick, and on escalation — post to chat, page someone, write an inbox row.
   */
  onApprovalPending?(ctx: ApprovalPendingContext): void | Promise<void>;
}
