/**
 * The turn's message handlers: the `decide` update (validated first: a rejected update never reaches
 * history) and signal (a rejection is recorded), both through the approval desk, and the progress
 * signal of its sub-agents.
 */
import { setHandler } from '@temporalio/workflow';
import {
  decideSignal,
  decideUpdate,
  DECIDE_DESCRIPTION,
  turnProgressSignal,
  TURN_PROGRESS_DESCRIPTION,
} from '../core/contract';
import { FailureType, rejection } from '../core/failures';
import type { AgentSpec } from '../core/spec';
import type { ApprovalDesk } from './desk/approvals';
import type { SubAgents } from './subagents';

/** `spec()`: the agent once resolved (whether it takes decisions by signal). */
export function serveDecisions(desk: ApprovalDesk, spec: () => AgentSpec | undefined, subAgents: SubAgents): void {
  setHandler(
    decideUpdate,
    async (decision) => {
      const verdict = await desk.apply(decision, 'update');
      if (verdict.type === 'rejected') throw rejection(FailureType.DecisionRejected, verdict.reason);
      return verdict.decision;
    },
    {
      validator: (decision) => {
        const verdict = desk.check(decision);
        if (verdict.type === 'rejected') throw rejection(FailureType.DecisionRejected, verdict.reason);
      },
      description: DECIDE_DESCRIPTION,
    },
  );
  // A signal cannot answer: a rejected decision is recorded as DECISION_REJECTED by the desk.
  setHandler(
    decideSignal,
    async (decision) => {
      if (spec()?.decideSignal === false)
        return desk.refuseSignal(decision, 'decide signals are off here; use the decide update');
      await desk.apply(decision, 'signal');
    },
    { description: DECIDE_DESCRIPTION },
  );
  setHandler(turnProgressSignal, (progress) => subAgents.onProgress(progress), {
    description: TURN_PROGRESS_DESCRIPTION,
  });
}
