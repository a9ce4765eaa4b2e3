/** What a tool call needs from its turn. */
import type { AgentSpec } from '../core/spec';
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
