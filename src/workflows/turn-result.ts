/** What a turn returns (and a failed turn carries in its failure's details), from its state. */
import type { TurnResult } from '../core/schemas';
import { budgetedState, type TurnState } from '../core/state';
import type { ContextWindow } from './context';

export function turnResult(state: TurnState, status: TurnResult['status'], window?: ContextWindow): TurnResult {
  return {
    output: state.output ?? '',
    ...(state.parsed !== undefined && { parsed: state.parsed }),
    usage: state.usage,
    toolCalls: budgetedState(state).toolCalls,
    status,
    trust: state.trust,
    ...(state.error !== undefined && { error: state.error }),
    ...resultExtras(state, window),
  };
}

/** What a turn's result adds after a guardrail, a handoff or a trim of its conversation. */
function resultExtras(state: TurnState, window: ContextWindow | undefined): Partial<TurnResult> {
  const tripped = state.guardrails?.find((g) => g.tripped);
  const context = window?.result();
  return {
    ...(tripped && {
      guardrail: { name: tripped.name, kind: tripped.kind, ...(tripped.info !== undefined && { info: tripped.info }) },
    }),
    ...(state.handedOffFrom && { agent: state.agent }),
    ...(context && { context }),
  };
}
