/**
 * The turn state's sub-agents (`children`): started, reporting progress, ended with their usage added
 * to the turn's. Part of the reducer (index.ts): pure.
 */
import type { SubAgentRun } from '../schemas';
import type { TurnEventOf, TurnState } from './types';
import { addUsage } from './usage';

/**
 * The sub-agent run with this turn id: an own entry only — an id from a signal such as `__proto__` or
 * `constructor` must not find `Object.prototype` (and write onto it) through the record.
 */
export function childRun(state: TurnState, childTurnId: string): SubAgentRun | undefined {
  const children = state.children;
  return children && Object.prototype.hasOwnProperty.call(children, childTurnId) ? children[childTurnId] : undefined;
}

/** Folds a sub-agent's event into the state. */
export function foldSubAgentEvent(
  state: TurnState,
  event: TurnEventOf<'SUBAGENT_STARTED' | 'SUBAGENT_PROGRESS' | 'SUBAGENT_ENDED'>,
): void {
  switch (event.type) {
    case 'SUBAGENT_STARTED':
      state.children ??= {};
      state.children[event.childTurnId] = {
        turnId: event.childTurnId,
        agent: event.agent,
        tool: event.tool,
        toolCallId: event.toolCallId,
        inherit: event.inherit,
        status: 'running',
        pendingApprovals: [],
        startedAt: event.at,
      };
      break;
    case 'SUBAGENT_PROGRESS': {
      const child = childRun(state, event.childTurnId);
      if (child && child.endedAt === undefined) {
        child.status = event.status;
        child.pendingApprovals = event.pendingApprovals;
      }
      break;
    }
    case 'SUBAGENT_ENDED': {
      const child = childRun(state, event.childTurnId);
      if (child) {
        child.status = event.status;
        child.pendingApprovals = [];
        child.usage = event.usage;
        child.endedAt = event.at;
        if (event.error !== undefined) child.error = event.error;
      }
      addUsage(state.usage, event.usage);
      break;
    }
  }
}
