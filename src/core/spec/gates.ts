/**
 * Approval gates as the workflow knows them (part of the plain-JSON spec, src/core/spec/index.ts): the
 * deadline, reminders, escalation and who may decide, and the durations they are given in.
 */

import type { Duration } from '@temporalio/common';

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
