/**
 * One tool call the model asked for, from request to result: the checks that need no activity, the
 * approval gate (a trust grant, a human at the approval desk, or the agent's approval hook), the
 * preview a human sees, and the run — a tool activity or a sub-agent's child turn. `run()` returns the
 * text the model reads back; every way a call can fail goes through `fail`, which records it.
 *
 * Command order matters here: calls of one response run concurrently, so each path keeps the awaits
 * of the recorded histories (a replay test checks it). Activity calls are awaited where they are made.
 */
import { isCancellation } from '@temporalio/workflow';
import { parseToolArgs } from '../../core/args';
import { describeFailure } from '../../core/failures';
import { approvalGate, truncateResult, unknownToolResult } from '../../core/policy';
import { subAgentInput } from '../../core/subagents';
import type { ArgCheck, RunToolResponse, ToolCallContext, ToolSpec } from '../../core/spec';
import { runsLocally, runToolActivity } from '../activities';
import type { WaitingCall, WaitOutcome } from '../desk/approvals';
import { approvedByTrust, askHuman, consultApprovalHook, type ApprovingCall } from './approval';
import { argsForDisplay, displayArgs } from './args';
import type { TurnScope } from '../turn-scope';

export class ToolCall implements ApprovingCall {
  /** The arguments as state and events show them. */
  readonly args: unknown;
  readonly toolSpec: ToolSpec | undefined;
  readonly isSubAgent: boolean;
  /** What runs: the model's arguments, or an approver's edit of them. */
  private runArgs: string;
  /**
   * The call may wait for a human: its gate asks one, or its approval hook may (or it resumes such a
   * wait). Known once `run()` or `resume()` was called: both decide it before their first await.
   */
  mayWaitForHuman = false;

  constructor(
    readonly turn: TurnScope,
    /** Unique within the turn (the model's own id may repeat; see the turn's `uniqueId`). */
    readonly id: string,
    readonly tool: string,
    readonly rawArgs: string,
    /** Its arguments as its model call checked them (an at-cost run, a gated tool without a preview). */
    readonly check?: ArgCheck,
  ) {
    this.args = displayArgs(rawArgs, turn.spec);
    this.toolSpec = turn.spec.tools.find((t) => t.name === tool);
    this.isSubAgent = this.toolSpec?.subAgent !== undefined;
    this.runArgs = rawArgs;
  }

  /**
   * Runs the call through check → approve → start → run → end; returns what the model sees. A call
   * refused by its checks answers at once (a string); one that needs no human is its run's promise.
   *
   * Promises are few on purpose: the SDK captures a stack trace for each one the sandbox creates (for
   * its stack-trace query), and a turn replays every step's. A call that needs no human costs one
   * promise over its activity's; one that waits goes through `approveThenExecute` (an async function).
   */
  run(): string | Promise<string> {
    const problem = this.precheck();
    if (problem !== undefined) return problem;

    const { spec, recorder } = this.turn;
    const verdict = approvalGate(spec, this.tool, recorder.state.trust);
    if (verdict.type === 'proceed' && verdict.via === 'trust') {
      approvedByTrust(this, verdict.grant);
    } else if (verdict.type === 'ask') {
      this.mayWaitForHuman = true;
      this.turn.desk.prepare(this.id);
      return this.approveThenExecute(() => askHuman(this, verdict.gate));
    } else if (verdict.type === 'hook') {
      this.mayWaitForHuman = true;
      this.turn.desk.prepare(this.id);
      // askHuman is called inside the hook's continuation (not after it returns): the same microtask
      // order as the recorded histories, so concurrent calls keep their command order on replay.
      return this.approveThenExecute(() =>
        consultApprovalHook(this, () => askHuman(this, spec.gates[this.tool] ?? {})),
      );
    }
    return this.execute();
  }

  /** Resumes a call that was waiting for a human when the turn continued as new; returns what the model sees. */
  async resume(waiting: WaitingCall): Promise<string> {
    this.mayWaitForHuman = true;
    const refusal = this.decided(await this.turn.desk.resume(waiting));
    if (refusal !== undefined) return refusal;
    return this.execute();
  }

  /**
   * Waits for the approval (a human, or the hook that may ask one), then runs the call unless refused.
   * The call was marked preparing (`run`): a decision may come while its hook or preview runs. Raising
   * the wait takes the mark off; so does the end here, when the call never waited (no added await).
   */
  private async approveThenExecute(approve: () => Promise<string | undefined>): Promise<string> {
    let refusal: string | undefined;
    try {
      refusal = await approve();
    } finally {
      this.turn.desk.unprepare(this.id);
    }
    if (refusal !== undefined) return refusal;
    return this.execute();
  }

  /** Runs the approved call: the tool's activity, or the sub-agent's child turn. */
  private execute(): Promise<string> {
    const { spec, recorder } = this.turn;
    const runArgs = this.runArgs === this.rawArgs ? this.args : argsForDisplay(this.runArgs);
    recorder.record({ type: 'TOOL_STARTED', toolCallId: this.id, tool: this.tool, args: runArgs });
    if (this.isSubAgent) return this.runSubAgent(runArgs);
    const run = () =>
      runToolActivity(
        this.toolSpec,
        {
          ...this.context(),
          rawArgs: this.runArgs,
          ...(spec.limits && { maxResultChars: spec.limits.maxToolResultChars }),
        },
        recorder.version,
      );
    // A local call's end is recorded at its start plus the duration it reported (./clock.ts).
    const running = runsLocally(this.toolSpec, recorder.version)
      ? recorder.clock.local(run, (outcome) => outcome.durationMs)
      : run();
    return running.then(
      (outcome) => this.ended(outcome),
      (err: unknown) => {
        if (isCancellation(err)) throw err;
        return this.fail(`Error: ${this.tool} did not complete: ${describeFailure(err)}`);
      },
    );
  }

  /** Records how the tool's activity ended; returns what the model sees. */
  private ended(outcome: RunToolResponse): string {
    this.turn.recorder.hookFailures(outcome.hookFailures, this.id);
    if (!outcome.ok) {
      return this.fail(outcome.error ?? outcome.content, {
        durationMs: outcome.durationMs,
        modelSees: outcome.content,
      });
    }
    const { durationMs, content } = outcome;
    this.turn.recorder.record({
      type: 'TOOL_ENDED',
      toolCallId: this.id,
      tool: this.tool,
      durationMs,
      result: content,
    });
    return content;
  }

  /** Fails the call without running anything (e.g. one call too many in a response). */
  refuse(error: string): string {
    return this.fail(error);
  }

  /** Records the call as failed; returns what the model reads (the error itself unless said otherwise). */
  fail(error: string, more: { modelSees?: string; args?: unknown; durationMs?: number } = {}): string {
    this.turn.recorder.record({
      type: 'TOOL_FAILED',
      toolCallId: this.id,
      tool: this.tool,
      args: more.args ?? this.args,
      ...(more.durationMs !== undefined && { durationMs: more.durationMs }),
      error,
    });
    return more.modelSees ?? error;
  }

  /** Who, where and what: the context every activity and hook about this call gets. */
  context(): Omit<ToolCallContext, 'args'> {
    const { spec, recorder, workflowId } = this.turn;
    return {
      agent: spec.name,
      turnId: recorder.state.turnId,
      workflowId,
      toolCallId: this.id,
      tool: this.tool,
      ...(spec.inherits && { inheritsFrom: spec.inherits }),
    };
  }

  /** What fails a call before anything runs: unknown tool, oversized or malformed arguments. */
  private precheck(): string | undefined {
    const { spec } = this.turn;
    if (!this.toolSpec)
      return this.fail(
        unknownToolResult(
          this.tool,
          spec.tools.map((t) => t.name),
        ),
      );
    const max = spec.limits?.maxToolArgChars;
    if (max !== undefined && this.rawArgs.length > max) {
      return this.fail(
        `Error: the arguments for ${this.tool} are ${this.rawArgs.length} characters long; the limit is ${max}.`,
      );
    }
    const parsed = parseToolArgs(this.rawArgs);
    if (parsed.type === 'invalid') {
      return this.fail(
        `Error: the arguments for ${this.tool} are not valid JSON (${parsed.error}). Send a JSON object.`,
      );
    }
    if (this.isSubAgent) {
      const checked = subAgentInput(this.tool, parsed.value);
      if (checked.type === 'invalid') return this.fail(checked.error, { modelSees: `Error: ${checked.error}` });
    }
    return undefined;
  }

  /** A human's answer: `undefined` = run (with their edited arguments, if any), else the refusal. */
  decided(outcome: WaitOutcome): string | undefined {
    if (outcome.type === 'refused') return outcome.result;
    if (outcome.decision.args !== undefined) this.runArgs = JSON.stringify(outcome.decision.args);
    return undefined;
  }

  /** Runs an approved sub-agent call as a child turn; its answer (or what went wrong) is the tool result. */
  private async runSubAgent(args: unknown): Promise<string> {
    const { spec, recorder, subAgents } = this.turn;
    const parsed = parseToolArgs(this.runArgs);
    const checked = subAgentInput(this.tool, parsed.type === 'valid' ? parsed.value : this.runArgs);
    if (checked.type === 'invalid') return this.fail(checked.error, { args, modelSees: `Error: ${checked.error}` });
    const startedAt = recorder.clock.now();
    const budget = this.turn.tokenBudget();
    const outcome = await subAgents.run({
      spec,
      tool: this.tool,
      toolCallId: this.id,
      input: checked.value,
      trust: recorder.state.trust,
      ...(budget !== undefined && { tokenBudget: Math.max(0, budget - recorder.state.usage.totalTokens) }),
    });
    const durationMs = recorder.clock.now() - startedAt;
    if (outcome.type === 'failed') return this.fail(outcome.error, { args, durationMs });
    const result = spec.limits ? truncateResult(outcome.output, spec.limits.maxToolResultChars) : outcome.output;
    recorder.record({ type: 'TOOL_ENDED', toolCallId: this.id, tool: this.tool, durationMs, result });
    return result;
  }
}
