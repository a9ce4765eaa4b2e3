/**
 * Effectful hooks, plugged in per agent (or for every agent on a worker). They run in activities,
 * so they may do I/O. The turn's own observer — the state reducer — runs in the workflow.
 */
import type {
  AnswerContext,
  ApprovalOutcome,
  ApprovalPendingContext,
  ApprovalResolvedContext,
  ToolCallContext,
} from '../core/spec';

/** `onAgentStart`'s context: the turn that starts. */
export interface AgentStartContext {
  agent: string;
  input: string;
  turnId: string;
  sessionId?: string;
}

/** `onToolEnd`'s context: the call, its result as the model reads it, and how long it ran. */
export interface ToolEndContext extends ToolCallContext {
  result: string;
  durationMs: number;
}

/** `onApprovalResolved`'s context: the receipts are this hook's own (what its `onApprovalPending` returned). */
export interface ApprovalResolvedHookContext extends Omit<ApprovalResolvedContext, 'receipts'> {
  receipts: unknown[];
}

/**
 * Hooks of an agent (`defineAgent({ hooks })`) or of every agent on a worker (`createWorker({ hooks })`):
 * observers (`onAgentStart`, `onToolStart`, `onToolEnd`, `onApprovalPending`, `onApprovalResolved`) and
 * interventions (`approveTool`, `approveAnswer`). They run in activities; an observer that throws is
 * recorded as `HOOK_FAILED` and the turn goes on.
 */
export interface TillerHooks {
  /** Shown in HOOK_FAILED events and logs. */
  name?: string;
  /**
   * The intervention: return `Proceed`, `Deny(reason?)`, `Ask` (pause for a human) or a boolean.
   * A throw counts as a denial (fail closed).
   */
  approveTool?(call: ToolCallContext): ApprovalOutcome | boolean | Promise<ApprovalOutcome | boolean>;
  /**
   * The intervention on the final answer: `Proceed` (the turn completes), `Deny(reason)` (the reason
   * goes back to the model, which revises), `Ask` (a human decides at the desk, as with `approveAnswer`
   * on the agent). A throw denies (fail closed).
   */
  approveAnswer?(answer: AnswerContext): ApprovalOutcome | boolean | Promise<ApprovalOutcome | boolean>;
  /** The turn starts (in the `startTurn` activity). */
  onAgentStart?(ctx: AgentStartContext): void | Promise<void>;
  /** Only for approved calls, right before the tool runs. */
  onToolStart?(call: ToolCallContext): void | Promise<void>;
  /** Only when the tool succeeded. */
  onToolEnd?(call: ToolEndContext): void | Promise<void>;
  /**
   * A call waits for a human: fired when the request is raised (`reminder: 0`), on every
   * `remindEvery` tick, and on escalation — post to chat, page someone, write an inbox row.
   * A hook that also has `onApprovalResolved` may return a small plain-JSON receipt (at most 2,000
   * characters, e.g. the id of the message it posted): it is recorded with the call and handed back.
   */
  onApprovalPending?(ctx: ApprovalPendingContext): unknown;
  /**
   * A call that waited for a human was approved, denied or expired (not when the turn is cancelled),
   * wherever the decision came from — update the chat message. Runs after the call's notifications,
   * beside the flow: the call never waits for it. `ctx.receipts` are this hook's receipts, oldest first.
   */
  onApprovalResolved?(ctx: ApprovalResolvedHookContext): void | Promise<void>;
}
