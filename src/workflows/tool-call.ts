/**
 * One tool call the model asked for, from request to result: the checks that need no activity, the
 * approval gate (a trust grant, a human at the approval desk, or the agent's approval hook), the
 * preview a human sees, and the run — a tool activity or a sub-agent's child turn. `run()` returns the
 * text the model reads back; every way a call can fail goes through `fail`, which records it.
 *
 * Command order matters here: calls of one response run concurrently, so each path keeps the awaits
 * of the recorded histories (a replay test checks it). Activity calls are awaited where they are made.
 */
import { isCancellation, patched } from '@temporalio/workflow';
import { parseToolArgs } from '../core/args';
import { describeFailure } from '../core/failures';
import { approvalGate, deniedResult, truncateResult, unknownToolResult } from '../core/policy';
import type { RecordedDecision, TrustGrant } from '../core/schemas';
import { subAgentInput } from '../core/subagents';
import type { AgentSpec, ApprovalOutcome, GateSpec, RunToolResponse, ToolCallContext, ToolSpec } from '../core/spec';
import { acts, hookOptions, runToolActivity } from './activities';
import type { ApprovalDesk, WaitingCall, WaitOutcome } from './approvals';
import { PATCH_VALIDATE_BEFORE_APPROVAL } from './patches';
import type { TurnRecorder } from './recorder';
import type { SubAgents } from './subagents';

/** What a tool call needs from its turn. */
export interface TurnScope {
  spec: AgentSpec;
  recorder: TurnRecorder;
  desk: ApprovalDesk;
  subAgents: SubAgents;
  workflowId: string;
  /** The turn's token budget, when it has one. */
  tokenBudget(): number | undefined;
}

type Checked<T> = { type: 'valid'; value: T } | { type: 'invalid'; error: string };

export class ToolCall {
  /** The arguments as state and events show them. */
  private readonly args: unknown;
  private readonly toolSpec: ToolSpec | undefined;
  private readonly isSubAgent: boolean;
  /** What runs: the model's arguments, or an approver's edit of them. */
  private runArgs: string;
  /**
   * The call may wait for a human: its gate asks one, or its approval hook may (or it resumes such a
   * wait). Known once `run()` or `resume()` was called: both decide it before their first await.
   */
  mayWaitForHuman = false;

  constructor(
    private readonly turn: TurnScope,
    /** Unique within the turn (the model's own id may repeat; see the turn's `uniqueId`). */
    readonly id: string,
    readonly tool: string,
    private readonly rawArgs: string,
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
      this.approvedByTrust(verdict.grant);
    } else if (verdict.type === 'ask') {
      this.mayWaitForHuman = true;
      return this.approveThenExecute(() => this.askHuman(verdict.gate));
    } else if (verdict.type === 'hook') {
      this.mayWaitForHuman = true;
      // askHuman is called inside the hook's continuation (not after it returns): the same microtask
      // order as the recorded histories, so concurrent calls keep their command order on replay.
      return this.approveThenExecute(() => this.consultApprovalHook(() => this.askHuman(spec.gates[this.tool] ?? {})));
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

  /** Waits for the approval (a human, or the hook that may ask one), then runs the call unless refused. */
  private async approveThenExecute(approve: () => Promise<string | undefined>): Promise<string> {
    const refusal = await approve();
    if (refusal !== undefined) return refusal;
    return this.execute();
  }

  /** Runs the approved call: the tool's activity, or the sub-agent's child turn. */
  private execute(): Promise<string> {
    const { spec, recorder } = this.turn;
    const runArgs = this.runArgs === this.rawArgs ? this.args : argsForDisplay(this.runArgs);
    recorder.record({ type: 'TOOL_STARTED', toolCallId: this.id, tool: this.tool, args: runArgs });
    if (this.isSubAgent) return this.runSubAgent(runArgs);
    const running = runToolActivity(this.toolSpec, {
      ...this.context(),
      rawArgs: this.runArgs,
      ...(spec.limits && { maxResultChars: spec.limits.maxToolResultChars }),
    });
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
  private fail(error: string, more: { modelSees?: string; args?: unknown; durationMs?: number } = {}): string {
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
  private context(): Omit<ToolCallContext, 'args'> {
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

  private approvedByTrust(grant: TrustGrant): void {
    const { recorder } = this.turn;
    const decision: RecordedDecision = {
      id: this.id,
      approved: true,
      scope: grant.scope,
      at: recorder.now(),
      via: 'trust',
      ...(grant.approver !== undefined && { approver: grant.approver }),
    };
    recorder.record({ type: 'TOOL_APPROVED', toolCallId: this.id, tool: this.tool, args: this.args, decision });
  }

  /** Asks a human at the desk; `undefined` = approved (maybe with edited arguments), else the refusal. */
  private async askHuman(gate: GateSpec): Promise<string | undefined> {
    let preview: string | undefined;
    // Since 0.2 every gated call's arguments are checked before a human is asked, not only a tool
    // with a preview; turns paused on 0.1 (no marker in their history) keep the old path on replay.
    // A sub-agent call has no worker tool to preview; its arguments were checked already.
    if (!this.isSubAgent && (this.toolSpec?.preview || patched(PATCH_VALIDATE_BEFORE_APPROVAL))) {
      const prepared = await this.preview();
      if (prepared.type === 'invalid') return prepared.error;
      preview = prepared.value;
    }
    return this.decided(await this.turn.desk.wait({ ...this.context(), args: this.args }, gate, preview));
  }

  /** A human's answer: `undefined` = run (with their edited arguments, if any), else the refusal. */
  private decided(outcome: WaitOutcome): string | undefined {
    if (outcome.type === 'refused') return outcome.result;
    if (outcome.decision.args !== undefined) this.runArgs = JSON.stringify(outcome.decision.args);
    return undefined;
  }

  /**
   * Shows the approver what the call would do (the tool's `preview`), validating its arguments first:
   * invalid arguments fail the call without bothering a human. A preview that cannot be made is shown
   * as unavailable, not fatal.
   */
  private async preview(): Promise<Checked<string | undefined>> {
    try {
      const prepared = await acts.previewTool.executeWithOptions({ ...hookOptions, summary: `preview ${this.tool}` }, [
        { ...this.context(), rawArgs: this.rawArgs },
      ]);
      if (prepared.ok) return { type: 'valid', value: prepared.preview };
      return { type: 'invalid', error: this.fail(prepared.error, { modelSees: `Error: ${prepared.error}` }) };
    } catch (err) {
      if (isCancellation(err)) throw err;
      return { type: 'valid', value: `(preview unavailable: ${describeFailure(err)})` };
    }
  }

  /**
   * The agent's approval hook decides: `undefined` = proceed, else the refusal text; on Ask a human
   * decides through `askHuman`. A hook that throws (or never answers) denies: fail closed.
   */
  private async consultApprovalHook(askHuman: () => Promise<string | undefined>): Promise<string | undefined> {
    const { recorder } = this.turn;
    let outcome: ApprovalOutcome;
    try {
      const response = await acts.approveTool.executeWithOptions({ ...hookOptions, summary: `approve ${this.tool}` }, [
        { ...this.context(), args: this.args },
      ]);
      recorder.hookFailures(response.hookFailures, this.id);
      outcome = response.outcome;
    } catch (err) {
      if (isCancellation(err)) throw err;
      recorder.hookFailures([{ hook: 'approveTool', error: describeFailure(err) }], this.id);
      outcome = { action: 'deny' };
    }
    if (outcome.action === 'ask') return askHuman();
    const reason = outcome.action === 'deny' ? outcome.reason : undefined;
    const decision: RecordedDecision = {
      id: this.id,
      approved: outcome.action === 'proceed',
      scope: 'once',
      at: recorder.now(),
      via: 'hook',
      ...(reason !== undefined && { reason }),
    };
    const base = { toolCallId: this.id, tool: this.tool, args: this.args };
    if (decision.approved) {
      recorder.record({ type: 'TOOL_APPROVED', ...base, decision });
      return undefined;
    }
    const result = deniedResult(reason);
    recorder.record({ type: 'TOOL_DENIED', ...base, result, decision, ...(reason !== undefined && { reason }) });
    return result;
  }

  /** Runs an approved sub-agent call as a child turn; its answer (or what went wrong) is the tool result. */
  private async runSubAgent(args: unknown): Promise<string> {
    const { spec, recorder, subAgents } = this.turn;
    const parsed = parseToolArgs(this.runArgs);
    const checked = subAgentInput(this.tool, parsed.type === 'valid' ? parsed.value : this.runArgs);
    if (checked.type === 'invalid') return this.fail(checked.error, { args, modelSees: `Error: ${checked.error}` });
    const startedAt = Date.now();
    const budget = this.turn.tokenBudget();
    const outcome = await subAgents.run({
      spec,
      tool: this.tool,
      toolCallId: this.id,
      input: checked.value,
      trust: recorder.state.trust,
      ...(budget !== undefined && { tokenBudget: Math.max(0, budget - recorder.state.usage.totalTokens) }),
    });
    const durationMs = Date.now() - startedAt;
    if (outcome.type === 'failed') return this.fail(outcome.error, { args, durationMs });
    const result = spec.limits ? truncateResult(outcome.output, spec.limits.maxToolResultChars) : outcome.output;
    recorder.record({ type: 'TOOL_ENDED', toolCallId: this.id, tool: this.tool, durationMs, result });
    return result;
  }
}

/** Arguments as recorded in state: parsed JSON when they parse, else the raw string the model sent. */
function argsForDisplay(raw: string): unknown {
  const parsed = parseToolArgs(raw);
  return parsed.type === 'valid' ? parsed.value : raw;
}

/** Arguments for state and events; oversized ones are summarised so they never bloat history twice. */
export function displayArgs(raw: string, spec: AgentSpec): unknown {
  if (spec.limits && raw.length > spec.limits.maxToolArgChars) return `[${raw.length} characters of arguments]`;
  return argsForDisplay(raw);
}
