/**
 * The shapes of the turn's approval desk (./approvals.ts): what a decision comes to, how a wait ends,
 * a waiting call as carried and as a run keeps it, and what the desk needs from its turn.
 */
import type { RecordedDecision } from '../../core/schemas';
import type {
  ApprovalPendingContext,
  ApprovalReceipt,
  ApprovalResolvedContext,
  GateSpec,
  ToolCallContext,
  ValidateArgsResponse,
} from '../../core/spec';
import type { TurnRecorder } from '../recorder';

/** What the desk makes of a decision: accepted (as checked, or as recorded), or rejected and why. */
export type DeskVerdict<T> = { type: 'accepted'; decision: T } | { type: 'rejected'; reason: string };

/** How a waiting call ends: approved (run it), or refused with the text the model reads instead. */
export type WaitOutcome = { type: 'approved'; decision: RecordedDecision } | { type: 'refused'; result: string };

/**
 * A call waiting for a human, and how far its wait has come: enough to resume it in the turn's next
 * run when it continues as new (plain JSON: the deadlines are epoch milliseconds of workflow time).
 */
export interface WaitingCall {
  call: ToolCallContext;
  gate: GateSpec;
  digest: string;
  preview?: string | undefined;
  /** Who may decide now (the current stage's approvers). */
  approvers?: string[] | undefined;
  /** An empty `approvers` list allows nobody (false only for waits raised before that rule). */
  emptyMeansNobody: boolean;
  stage: number;
  deadline?: number | undefined;
  nextReminder?: number | undefined;
  reminder: number;
  /**
   * What the `onApprovalPending` hooks returned for this call so far (the newest
   * `BOUNDS.receiptsPerCall`), for `onApprovalResolved`. Absent in waits carried before receipts.
   */
  receipts?: ApprovalReceipt[] | undefined;
}

export interface Waiter extends WaitingCall {
  /** Set while an accepted decision with edited arguments is being validated. */
  deciding: boolean;
  decision?: RecordedDecision;
  /** This run's `onApprovalPending` activities for the call, settled or not (never carried). */
  notifications: Promise<void>[];
  /** How many of them are still running. */
  notifying: number;
}

export interface DeskDeps {
  recorder: TurnRecorder;
  /** The agent's limit on a call's arguments (JSON characters): edited ones must fit too. */
  maxArgsChars?(): number | undefined;
  /** Validates edited arguments against the tool's schema (an activity: the schema lives in the worker). */
  validateArgs(tool: string, args: unknown): Promise<ValidateArgsResponse>;
  /** Fires the `onApprovalPending` hooks (an activity), when the agent has any; returns their receipts. */
  notifyPending?(ctx: ApprovalPendingContext): Promise<ApprovalReceipt[]>;
  /** Fires the `onApprovalResolved` hooks (an activity) once `receipts` (the call's notifications) have settled. */
  notifyResolved?(ctx: Omit<ApprovalResolvedContext, 'receipts'>, receipts: Promise<ApprovalReceipt[]>): Promise<void>;
  /**
   * Whether receipts matter (the agent has `onApprovalResolved` hooks): then a call is not quiet — the
   * turn does not continue as new — while one of its notifications runs, so its receipt is carried.
   */
  keepsReceipts?(): boolean;
  /**
   * Whether this deployment verifies approvers (the worker's `verifiedApprovers`): a decision without
   * the verified `tillerApprover` header is refused and recorded, its body's `approver` never believed.
   */
  verifiesApprovers?(): boolean;
}

/** The desk's calls in wait, by tool call id, and its dependencies: what its parts share. */
export interface DeskState {
  /** Without a prototype (`Object.create(null)`): an id such as "__proto__" finds nothing. */
  readonly waiters: Record<string, Waiter>;
  /**
   * Gated calls whose approval hook or preview runs: they will wait for a human unless the hook or the
   * preview settles them. A decision for one is taken and held until the call waits (./check.ts).
   */
  readonly preparing: Set<string>;
  readonly deps: DeskDeps;
}
