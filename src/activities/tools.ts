/**
 * Tool activities: argument validation, execution with an idempotency key, error folding, and the
 * effectful hooks around a call (approval, on start, on end). Hook failures are reported back to
 * the workflow, which records them as HOOK_FAILED; they never fail the activity.
 */
import { Context, log } from '@temporalio/activity';
import { combineOutcomes, toOutcome } from '../core/policy';
import { formatZodError } from '../core/schemas';
import type { ApproveToolResponse, HookFailure, RunToolRequest, RunToolResponse, ToolCallContext } from '../core/spec';
import type { TillerHooks } from '../agents/hooks';
import { resultToText, type ToolDefinition } from '../tools/define';

export interface ToolActivityDeps {
  tools: ReadonlyMap<string, ToolDefinition>;
  /** The hooks that apply to an agent (its own plus the worker's global ones). */
  hooksFor(agent: string): readonly TillerHooks[];
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Calls one kind of hook on every hook object that has it; collects failures instead of throwing. */
export async function runHooks<K extends 'onAgentStart' | 'onToolStart' | 'onToolEnd'>(
  hooks: readonly TillerHooks[],
  kind: K,
  arg: Parameters<NonNullable<TillerHooks[K]>>[0],
): Promise<HookFailure[]> {
  const failures: HookFailure[] = [];
  for (const hook of hooks) {
    const fn = hook[kind] as ((a: typeof arg) => unknown) | undefined;
    if (!fn) continue;
    try {
      await fn.call(hook, arg);
    } catch (err) {
      log.warn(`hook ${kind} failed`, { hookName: hook.name, error: message(err) });
      failures.push({ hook: kind, ...(hook.name !== undefined && { hookName: hook.name }), error: message(err) });
    }
  }
  return failures;
}

export function createToolActivities({ tools, hooksFor }: ToolActivityDeps) {
  return {
    async approveTool(call: ToolCallContext): Promise<ApproveToolResponse> {
      const outcomes = [];
      for (const hook of hooksFor(call.agent)) {
        if (!hook.approveTool) continue;
        try {
          outcomes.push(toOutcome(await hook.approveTool(call)));
        } catch (err) {
          // Fail closed: a broken approval hook denies, without a reason the model could be misled by.
          log.warn('approval hook failed; denying', { hookName: hook.name, error: message(err) });
          return {
            outcome: { action: 'deny' },
            hookFailures: [
              { hook: 'approveTool', ...(hook.name !== undefined && { hookName: hook.name }), error: message(err) },
            ],
          };
        }
      }
      return { outcome: combineOutcomes(outcomes), hookFailures: [] };
    },

    async runTool(req: RunToolRequest): Promise<RunToolResponse> {
      const ctx = Context.current();
      const started = performance.now();
      const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
      const tool = tools.get(req.tool);
      const failed = (error: string, hookFailures: HookFailure[]): RunToolResponse => ({
        ok: false,
        content: `Error: ${error}`,
        error,
        durationMs: elapsed(),
        hookFailures,
      });
      if (!tool) return failed(`unknown tool "${req.tool}"`, []);

      let rawArgs: unknown;
      try {
        rawArgs = req.rawArgs.trim() === '' ? {} : JSON.parse(req.rawArgs);
      } catch (err) {
        return failed(`the arguments for ${req.tool} are not valid JSON (${message(err)})`, []);
      }
      const call: ToolCallContext = { ...req, args: rawArgs };
      const hooks = hooksFor(req.agent);
      const hookFailures = await runHooks(hooks, 'onToolStart', call);

      const parsed = tool.input.safeParse(rawArgs);
      if (!parsed.success) {
        return failed(`invalid arguments for ${req.tool}: ${formatZodError(parsed.error)}`, hookFailures);
      }
      let content: string;
      try {
        content = resultToText(
          await tool.execute(parsed.data, {
            idempotencyKey: `${req.workflowId}:${req.toolCallId}`,
            toolCallId: req.toolCallId,
            turnId: req.turnId,
            workflowId: req.workflowId,
            agent: req.agent,
            signal: ctx.cancellationSignal,
            heartbeat: (details) => ctx.heartbeat(details),
          }),
        );
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw err;
        return failed(`${req.tool} failed: ${message(err)}`, hookFailures);
      }
      const durationMs = elapsed();
      hookFailures.push(...(await runHooks(hooks, 'onToolEnd', { ...call, result: content, durationMs })));
      return { ok: true, content, durationMs, hookFailures };
    },
  };
}
