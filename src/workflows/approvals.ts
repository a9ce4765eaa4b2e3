/**
 * The turn's approval desk: which tool calls wait for a human, how a decision is checked, and how it
 * is recorded. The `decide` update's validator and the `decide` signal share `checkDecision`, so both
 * channels accept and reject exactly the same payloads.
 */
import { Decision, formatZodError, type RecordedDecision, type TurnState } from '../core/schemas';
import type { GateSpec } from '../core/spec';

export interface Waiter {
  id: string;
  tool: string;
  gate: GateSpec;
  decision?: RecordedDecision;
}

export class DecisionRejected extends Error {
  override readonly name = 'DecisionRejected';
}

export class ApprovalDesk {
  private readonly waiters: Record<string, Waiter> = {};

  constructor(private readonly state: TurnState) {}

  open(id: string, tool: string, gate: GateSpec): Waiter {
    const waiter: Waiter = { id, tool, gate };
    this.waiters[id] = waiter;
    return waiter;
  }

  close(id: string): void {
    delete this.waiters[id];
  }

  /** Parses and checks a decision against what is pending now; throws `DecisionRejected` with a clear message. */
  check(raw: unknown): Decision {
    const parsed = Decision.safeParse(raw);
    if (!parsed.success) throw new DecisionRejected(`malformed decision: ${formatZodError(parsed.error)}`);
    const decision = parsed.data;
    const waiter = this.waiters[decision.id];
    if (!waiter) {
      const known = this.state.toolCalls.find((c) => c.id === decision.id);
      if (known) throw new DecisionRejected(`tool call ${decision.id} is not pending (status: ${known.status})`);
      const pending = this.state.pendingApprovals.map((p) => p.id);
      throw new DecisionRejected(
        `unknown tool call id ${decision.id}; pending: ${pending.length ? pending.join(', ') : '(none)'}`,
      );
    }
    if (waiter.decision) throw new DecisionRejected(`tool call ${decision.id} was already decided`);
    if (decision.approved && (decision.scope === 'turn' || decision.scope === 'session') && waiter.gate.neverTrust) {
      throw new DecisionRejected(`${waiter.tool} can never be trusted beyond one call; decide with scope "once"`);
    }
    return decision;
  }

  /** Records a checked decision on its waiter and returns what was recorded. */
  record(decision: Decision, via: 'update' | 'signal', at: string): RecordedDecision {
    const waiter = this.waiters[decision.id];
    if (!waiter) throw new DecisionRejected(`tool call ${decision.id} is not pending`);
    waiter.decision = {
      id: decision.id,
      approved: decision.approved,
      scope: decision.scope ?? 'once',
      at,
      via,
      ...(decision.reason !== undefined && { reason: decision.reason }),
      ...(decision.approver !== undefined && { approver: decision.approver }),
    };
    return waiter.decision;
  }
}

/** A signal payload's id and approver, when it has them, for the DECISION_REJECTED event. */
export function describePayload(raw: unknown): { id?: string; approver?: string } {
  if (!raw || typeof raw !== 'object') return {};
  const { id, approver } = raw as { id?: unknown; approver?: unknown };
  return {
    ...(typeof id === 'string' && { id }),
    ...(typeof approver === 'string' && { approver }),
  };
}
