/** What a tool call needs from its turn, and where a turn runs. */
import { allHandlersFinished, condition } from '@temporalio/workflow';
import type { AgentSpec } from '../core/spec';
import type { TurnState } from '../core/state';
import type { ApprovalDesk } from './desk/approvals';
import type { TurnRecorder } from './recorder';
import type { SubAgents } from './subagents';

export interface TurnScope {
  spec: AgentSpec;
  recorder: TurnRecorder;
  desk: ApprovalDesk;
  subAgents: SubAgents;
  workflowId: string;
  /** The turn's token budget, when it has one. */
  tokenBudget(): number | undefined;
}

/** Where a turn's body runs: its own `agentTurn` workflow, or inside a session's (../session-inline.ts). */
export interface TurnHost {
  /** The turn's id: its workflow id, or `<session id>#turn-<n>` inside a session. */
  turnId: string;
  /**
   * Inside a session's workflow: the turn's state answers `turnState` (the session's `state` is the
   * session's), the turn never continues as new by itself (the session does, between turns), and it
   * does not wait for the workflow's handlers before it returns (see `handlersFinished`).
   */
  inline?: boolean;
  /** Given the turn's state as it starts (a session shows the running turn's status and waits from it). */
  watch?: (state: TurnState) => void;
}

/**
 * Before a turn returns: in its own workflow, until its handlers (a `decide` in flight) have finished,
 * so none fails with the workflow's end. Inside a session nothing ends with the turn, and a
 * `turnResult` update waits for this very turn: it does not wait.
 */
export async function handlersFinished(host: TurnHost): Promise<void> {
  if (!host.inline) await condition(allHandlersFinished);
}
