/**
 * What checked, moved or trimmed the turn's conversation, as the turn state keeps it: guardrails that
 * ran (`GUARDRAIL_RAN`), handoffs to another agent (`HANDOFF`), and the context window's trims
 * (`CONTEXT_TRIMMED`); the model calls of guardrail agents and summaries count in the turn's usage.
 * Part of the reducer (index.ts): pure.
 */
import type { TurnEventOf, TurnState } from './types';
import { addUsage } from './usage';

/** Folds a guardrail, handoff or context-window event into the state. */
export function foldAgentEvent(
  state: TurnState,
  event: TurnEventOf<'GUARDRAIL_RAN' | 'HANDOFF' | 'CONTEXT_TRIMMED'>,
): void {
  switch (event.type) {
    case 'GUARDRAIL_RAN': {
      const { name, kind, tripped, durationMs, info, error, agent, usage } = event;
      (state.guardrails ??= []).push({
        name,
        kind,
        tripped,
        at: event.at,
        ...(durationMs !== undefined && { durationMs }),
        ...(info !== undefined && { info }),
        ...(error !== undefined && { error }),
        ...(agent !== undefined && { agent }),
      });
      if (usage) addUsage(state.usage, { ...usage, modelCalls: 1 });
      break;
    }
    case 'HANDOFF':
      (state.handedOffFrom ??= []).push(event.from);
      state.agent = event.to;
      break;
    case 'CONTEXT_TRIMMED':
      if (event.usage) addUsage(state.usage, { ...event.usage, modelCalls: 1 });
      state.context = {
        dropped: (state.context?.dropped ?? 0) + event.dropped,
        ...((event.summary ?? state.context?.summary) !== undefined && {
          summary: event.summary ?? state.context?.summary,
        }),
      };
      break;
  }
}
