/**
 * A turn's sub-agents: each call of a sub-agent tool runs the named agent as a child `agentTurn`
 * (its own workflow, hooks, approvals and search attributes), waits for it, and hands its final
 * answer back as the tool result. The child tells its parent what it waits for with `turnProgress`
 * signals; the parent records that and the child's usage as events, so the parent's `state` shows
 * both and replay rebuilds them exactly.
 */
import {
  CancellationScope,
  ChildWorkflowCancellationType,
  isCancellation,
  ParentClosePolicy,
  startChild,
} from '@temporalio/workflow';
import { subAgentDetails, subAgentSummary, WORKFLOW_TYPE_TURN, type AgentTurnWorkflow } from '../core/contract';
import { describeFailure, turnResultOf } from '../core/failures';
import { emptyUsage, TurnProgressCheck, type TrustGrant, type TurnProgress, type Usage } from '../core/schemas';
import type { AgentSpec } from '../core/spec';
import { childRun } from '../core/state';
import { boundProgress, subAgentErrorResult, subAgentTurnId } from '../core/subagents';
import type { TurnRecorder } from './recorder';

export interface SubAgentCall {
  /** The calling agent's spec and the tool (sub-agent name) its model called. */
  spec: AgentSpec;
  tool: string;
  toolCallId: string;
  input: string;
  /** The parent's trust grants, passed on when the sub-agent inherits. */
  trust: TrustGrant[];
  /** Tokens the parent has left, if it has a budget: the child may use at most that. */
  tokenBudget?: number;
}

export type SubAgentOutcome = { type: 'completed'; output: string } | { type: 'failed'; error: string };

export class SubAgents {
  /** The usage each child last reported: what it has used when it ends without a result. */
  private readonly reported = new Map<string, Usage>();

  constructor(private readonly recorder: TurnRecorder) {}

  private get state() {
    return this.recorder.state;
  }

  /** The `turnProgress` signal from a child: records what it now waits for (only on change). */
  onProgress(raw: TurnProgress): void {
    const checked = TurnProgressCheck.safeParse(raw);
    if (!checked.success) return; // not from a child of ours
    const progress = boundProgress(checked.data);
    const child = childRun(this.state, progress.turnId);
    if (!child || child.endedAt !== undefined) return;
    if (progress.usage) this.reported.set(progress.turnId, progress.usage);
    const ids = (p: { id: string }[]) => p.map((x) => x.id).join(',');
    const terminal = progress.status === 'completed' || progress.status === 'failed' || progress.status === 'cancelled';
    if (
      terminal ||
      (progress.status === child.status && ids(progress.pendingApprovals) === ids(child.pendingApprovals))
    )
      return; // the end is recorded from the child's result; nothing new otherwise
    this.recorder.record({
      type: 'SUBAGENT_PROGRESS',
      childTurnId: progress.turnId,
      status: progress.status,
      pendingApprovals: progress.pendingApprovals,
    });
  }

  /**
   * Runs the sub-agent to its end. Its failure or cancellation is an outcome the parent's model
   * reads; only the parent's own cancellation propagates (and cancels the child on the way).
   */
  async run(call: SubAgentCall): Promise<SubAgentOutcome> {
    const sub = call.spec.tools.find((t) => t.name === call.tool)?.subAgent;
    if (!sub) throw new Error(`${call.tool} is not a sub-agent of ${call.spec.name}`);
    const childTurnId = subAgentTurnId(this.state.turnId, call.toolCallId);
    this.recorder.record({
      type: 'SUBAGENT_STARTED',
      toolCallId: call.toolCallId,
      tool: call.tool,
      agent: sub.agent,
      childTurnId,
      inherit: sub.inherit,
    });
    const ended = (status: 'completed' | 'failed' | 'cancelled', usage: Usage, error?: string) =>
      this.recorder.record({
        type: 'SUBAGENT_ENDED',
        toolCallId: call.toolCallId,
        childTurnId,
        status,
        usage,
        ...(error !== undefined && { error }),
      });
    try {
      const child = await startChild<AgentTurnWorkflow>(WORKFLOW_TYPE_TURN, {
        workflowId: childTurnId,
        args: [
          {
            agent: sub.agent,
            input: call.input,
            parent: { turnId: this.state.turnId, toolCallId: call.toolCallId, agent: call.spec.name },
            // The parent's starter may not approve the sub-agent's calls either.
            ...(this.state.startedBy !== undefined && { startedBy: this.state.startedBy }),
            ...(sub.inherit && { inherit: [call.spec.name, ...(call.spec.inherits ?? [])], trust: call.trust }),
            ...(call.tokenBudget !== undefined && { tokenBudget: call.tokenBudget }),
          },
        ],
        // Cancelling (or terminating) the parent cancels the child; awaiting it, the parent waits
        // until the child has actually ended, so both end `cancelled` together.
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
        staticSummary: subAgentSummary(sub.agent, this.state.turnId, call.input),
        staticDetails: subAgentDetails({
          agent: sub.agent,
          tool: call.tool,
          parentTurnId: this.state.turnId,
          parentAgent: call.spec.name,
          input: call.input,
        }),
      });
      const result = await child.result();
      ended('completed', result.usage);
      return { type: 'completed', output: result.output };
    } catch (err) {
      const failed = turnResultOf(err);
      const cancelled = isCancellation(err);
      const error = failed?.error ?? describeFailure(err);
      ended(cancelled ? 'cancelled' : 'failed', failed?.usage ?? this.reported.get(childTurnId) ?? emptyUsage(), error);
      if (cancelled && CancellationScope.current().consideredCancelled) throw err;
      return { type: 'failed', error: subAgentErrorResult(call.tool, cancelled ? 'cancelled' : 'failed', error) };
    }
  }
}
