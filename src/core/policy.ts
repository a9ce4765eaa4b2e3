/**
 * The approval gate (docs/architecture.md, "The flow of a turn") as a pure function, plus the texts the model sees when a
 * call does not run. The workflow asks `approvalGate` what to do with each requested tool call.
 */
import { BOUNDS, clip } from './bounds';
import type { AgentSpec, ApprovalOutcome, GateSpec } from './spec';
import type { TrustGrant } from './schemas';

/** What the model reads when a call is denied without a reason. */
export const DENIED_WITHOUT_REASON = 'Tool call denied by user.';

export type GateVerdict =
  | { type: 'proceed'; via: 'policy' }
  | { type: 'proceed'; via: 'trust'; grant: TrustGrant }
  | { type: 'ask'; gate: GateSpec }
  | { type: 'hook' };

export function findTrust(trust: readonly TrustGrant[], tool: string): TrustGrant | undefined {
  return trust.find((t) => t.tool === tool);
}

/**
 * Decides what happens to one tool call before it runs:
 * trusted (and trustable) → proceed; gated by the agent's policy → ask a human;
 * otherwise the approval hook decides when the agent has one; otherwise proceed.
 */
export function approvalGate(spec: AgentSpec, tool: string, trust: readonly TrustGrant[]): GateVerdict {
  const gate = spec.gates[tool];
  const grant = gate?.neverTrust ? undefined : findTrust(trust, tool);
  if (grant) return { type: 'proceed', via: 'trust', grant };
  if (gate) return { type: 'ask', gate };
  if (spec.hooks.approveTool) return { type: 'hook' };
  return { type: 'proceed', via: 'policy' };
}

/** Combines several approval hooks' answers: any deny wins, then any ask, else proceed. */
export function combineOutcomes(outcomes: readonly ApprovalOutcome[]): ApprovalOutcome {
  return outcomes.find((o) => o.action === 'deny') ?? outcomes.find((o) => o.action === 'ask') ?? { action: 'proceed' };
}

/** Normalises what a user's approval hook may return. */
export function toOutcome(value: unknown): ApprovalOutcome {
  if (value === true || value === undefined) return { action: 'proceed' };
  if (value === false) return { action: 'deny' };
  if (value && typeof value === 'object' && 'action' in value) {
    const v = value as { action: unknown; reason?: unknown };
    if (v.action === 'proceed' || v.action === 'ask') return { action: v.action };
    if (v.action === 'deny')
      return typeof v.reason === 'string' ? { action: 'deny', reason: v.reason } : { action: 'deny' };
  }
  throw new TypeError(
    `approval hook returned ${JSON.stringify(value)}; expected Proceed, Deny(reason?), Ask or a boolean`,
  );
}

/** An approval hook's verdict: the call runs (unless another hook denies or asks). */
export const Proceed: ApprovalOutcome = { action: 'proceed' };
/** An approval hook's verdict: a human decides (unless another hook denies). */
export const Ask: ApprovalOutcome = { action: 'ask' };
/** An approval hook's verdict: the call does not run, and the model reads the reason. Any Deny wins. */
export function Deny(reason?: string): ApprovalOutcome {
  return reason === undefined ? { action: 'deny' } : { action: 'deny', reason };
}

/** The tool result the model sees for a denied call. */
export function deniedResult(reason?: string): string {
  return reason && reason.trim() ? reason : DENIED_WITHOUT_REASON;
}

export function timedOutResult(tool: string, timeout: string | number | undefined, escalatedTo?: string[]): string {
  const after =
    escalatedTo !== undefined
      ? ` after escalation to ${escalatedTo.join(', ') || 'nobody'}`
      : timeout === undefined
        ? ''
        : ` after ${typeof timeout === 'number' ? `${timeout} ms` : timeout}`;
  return `The approval request for ${tool} expired${after} without a decision; the tool was not run.`;
}

/** Cuts `text` to `max` characters with a marker the model (and a reader of history) understands. */
export function truncateResult(text: string, max: number | undefined): string {
  if (max === undefined || text.length <= max) return text;
  const marker = `\n[truncated by Tiller: ${text.length} characters, showing the first ${max}]`;
  return text.slice(0, max) + marker;
}

export function unknownToolResult(tool: string, known: readonly string[]): string {
  return `Error: unknown tool "${clip(tool, BOUNDS.name)}". Available tools: ${known.join(', ') || '(none)'}.`;
}
