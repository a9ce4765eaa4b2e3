/**
 * The turn state's usage: tokens and model calls summed, and the model call that adds its own and
 * opens a record for each tool call it asks for (`MODEL_CALLED`). Part of the reducer (index.ts): pure.
 */
import type { Usage } from '../schemas';
import { toolCall } from './calls';
import type { TurnEventOf, TurnState } from './types';

/** Adds `more` to `total`, in place. */
export function addUsage(total: Usage, more: Usage): void {
  total.inputTokens += more.inputTokens;
  total.outputTokens += more.outputTokens;
  total.totalTokens += more.totalTokens;
  total.modelCalls += more.modelCalls;
  if (more.estimatedCalls) total.estimatedCalls = (total.estimatedCalls ?? 0) + more.estimatedCalls;
}

/** Folds a model call into the state: its usage, and a record for each tool call it asks for. */
export function foldModelCall(state: TurnState, event: TurnEventOf<'MODEL_CALLED'>): void {
  addUsage(state.usage, { ...event.usage, modelCalls: 1, ...(event.usageEstimated && { estimatedCalls: 1 }) });
  for (const call of event.toolCalls) toolCall(state, call.id, call.name, call.args);
}
