/**
 * The turn state's tool calls: a call's record, found or opened by its id, and the tool events that
 * move it (`TOOL_STARTED`, `TOOL_ENDED`, `TOOL_FAILED`). Part of the reducer (index.ts): pure.
 */
import type { ToolCallRecord } from '../schemas';
import type { TurnEventOf, TurnState } from './types';

/** The record of call `id`, opened (running) on its first mention. */
export function toolCall(state: TurnState, id: string, name: string, args: unknown): ToolCallRecord {
  let record = state.toolCalls.find((c) => c.id === id);
  if (!record) {
    record = { id, name, args, status: 'running' };
    state.toolCalls.push(record);
  }
  return record;
}

/** Folds an event of a tool's run into the state. */
export function foldToolEvent(
  state: TurnState,
  event: TurnEventOf<'TOOL_STARTED' | 'TOOL_ENDED' | 'TOOL_FAILED'>,
): void {
  switch (event.type) {
    case 'TOOL_STARTED': {
      const call = toolCall(state, event.toolCallId, event.tool, event.args);
      call.status = 'running';
      call.startedAt = event.at;
      break;
    }
    case 'TOOL_ENDED': {
      const call = toolCall(state, event.toolCallId, event.tool, undefined);
      call.status = 'succeeded';
      call.endedAt = event.at;
      call.durationMs = event.durationMs;
      call.result = event.result;
      break;
    }
    case 'TOOL_FAILED': {
      const call = toolCall(state, event.toolCallId, event.tool, event.args);
      call.status = 'failed';
      call.endedAt = event.at;
      if (event.durationMs !== undefined) call.durationMs = event.durationMs;
      call.error = event.error;
      break;
    }
  }
}

/** A turn that ends early leaves no call looking as if it were still in progress. */
export function abandonOpenCalls(state: TurnState, at: string, error: string): void {
  for (const call of state.toolCalls) {
    if (call.status === 'running' || call.status === 'awaiting_approval') {
      call.status = 'failed';
      call.error = error;
      call.endedAt = at;
    }
  }
  state.pendingApprovals = [];
}
