/**
 * Tool activities: argument validation (an approver's edit too), the preview an approver sees,
 * execution with an idempotency key, error folding, and the hooks around a run (on start, on end).
 * Hook failures are reported back to the workflow, which records them as HOOK_FAILED; they never fail
 * the activity. The approval hooks are ./approval-hooks.ts.
 */
import { Context } from '@temporalio/activity';
import { BOUNDS } from '../core/bounds';
import { parseToolArgs } from '../core/args';
import { truncateResult } from '../core/policy';
import { formatZodError } from '../core/schemas';
import { ANSWER_TOOL } from '../core/spec';
import type {
  HookFailure,
  PreviewRequest,
  PreviewResponse,
  RunToolRequest,
  RunToolResponse,
  ToolCallContext,
  ValidateArgsRequest,
  ValidateArgsResponse,
} from '../core/spec';
import type { TillerHooks } from '../agents/hooks';
import { mcpCallable } from '../mcp/calls';
import type { McpPool } from '../mcp/pool';
import { McpArgsValidator } from '../mcp/validate';
import { resultToText, type ToolContext, type ToolDefinition } from '../tools/define';
import { invalidArgs, notJson } from './arg-checks';
import { message, runHooks } from './hooks';

export interface ToolActivityDeps {
  tools: ReadonlyMap<string, ToolDefinition>;
  /** The hooks that apply to an agent (its own plus the worker's global ones). */
  hooksFor(agent: string, inheritsFrom?: readonly string[]): readonly TillerHooks[];
  /** The worker's MCP clients: tools named `<server>__<tool>` are called on that server. */
  mcp?: McpPool;
}

type ArgsCheck = { type: 'valid'; value: unknown } | { type: 'invalid'; error: string };

/** A tool as the activities run it, whether defined in this worker (zod) or offered by an MCP server. */
interface Runnable {
  /** Validates (and, for zod tools, parses) the arguments; throws only when it cannot tell. */
  check(args: unknown): Promise<ArgsCheck>;
  execute(args: unknown, ctx: ToolContext): Promise<unknown>;
  preview?(args: unknown, ctx: Omit<ToolContext, 'heartbeat'>): Promise<unknown>;
}

function workerTool(def: ToolDefinition): Runnable {
  return {
    async check(args) {
      const parsed = def.input.safeParse(args);
      return parsed.success
        ? { type: 'valid', value: parsed.data }
        : { type: 'invalid', error: formatZodError(parsed.error) };
    },
    async execute(args, ctx) {
      return def.execute(args, ctx);
    },
    ...(def.preview && { preview: async (args, ctx) => def.preview!(args, ctx) }),
  };
}

const PREVIEW_LIMIT = 2_000;

export function createToolActivities({ tools, hooksFor, mcp }: ToolActivityDeps) {
  const validator = new McpArgsValidator();
  const runnable = (name: string): Runnable | undefined => {
    const def = tools.get(name);
    if (def) return workerTool(def);
    const remote = mcp && mcpCallable(mcp, validator, name);
    if (!remote) return undefined;
    return {
      check: async (args) => {
        const checked = await remote.validate(args);
        return checked.type === 'valid' ? { type: 'valid', value: args } : checked;
      },
      execute: (args, ctx) => remote.execute(args, { ...ctx, timeoutMs: Context.current().info.startToCloseTimeoutMs }),
    };
  };

  return {
    /** Checks an approver's edited arguments against the tool's schema. */
    async validateToolArgs({ tool, args }: ValidateArgsRequest): Promise<ValidateArgsResponse> {
      // An answer gate's edit (`final_answer`, never a worker tool: defineAgent refuses the name).
      if (tool === ANSWER_TOOL && !runnable(tool)) {
        const text = (args as { text?: unknown } | null)?.text;
        return typeof text === 'string' && text.length <= BOUNDS.long
          ? { ok: true }
          : { ok: false, error: `an edited answer is { text: string } of at most ${BOUNDS.long} characters` };
      }
      const def = runnable(tool);
      if (!def) return { ok: false, error: `unknown tool "${tool}"` };
      const checked = await def.check(args);
      return checked.type === 'valid' ? { ok: true } : { ok: false, error: invalidArgs(tool, checked.error) };
    },

    /** Validates a gated call's arguments and renders the tool's preview for the approver. */
    async previewTool(req: PreviewRequest): Promise<PreviewResponse> {
      const def = runnable(req.tool);
      if (!def) return { ok: false, error: `unknown tool "${req.tool}"` };
      const raw = parseToolArgs(req.rawArgs);
      if (raw.type === 'invalid') {
        return { ok: false, error: notJson(req.tool, raw.error) };
      }
      const checked = await def.check(raw.value);
      if (checked.type === 'invalid') return { ok: false, error: invalidArgs(req.tool, checked.error) };
      if (!def.preview) return { ok: true };
      const ctx = Context.current();
      try {
        const text = resultToText(
          await def.preview(checked.value, {
            idempotencyKey: `${req.workflowId}:${req.toolCallId}`,
            toolCallId: req.toolCallId,
            turnId: req.turnId,
            workflowId: req.workflowId,
            agent: req.agent,
            signal: ctx.cancellationSignal,
          }),
        );
        return { ok: true, preview: text.length > PREVIEW_LIMIT ? `${text.slice(0, PREVIEW_LIMIT)}…` : text };
      } catch (err) {
        return { ok: true, preview: `(preview failed: ${message(err)})` };
      }
    },

    async runTool(req: RunToolRequest): Promise<RunToolResponse> {
      const ctx = Context.current();
      const started = performance.now();
      const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
      const tool = runnable(req.tool);
      const failed = (error: string, hookFailures: HookFailure[]): RunToolResponse => ({
        ok: false,
        content: `Error: ${error}`,
        error,
        durationMs: elapsed(),
        hookFailures,
      });
      if (!tool) return failed(`unknown tool "${req.tool}"`, []);

      const raw = parseToolArgs(req.rawArgs);
      if (raw.type === 'invalid') return failed(notJson(req.tool, raw.error), []);
      const rawArgs = raw.value;
      const call: ToolCallContext = { ...req, args: rawArgs };
      const hooks = hooksFor(req.agent, req.inheritsFrom);
      const hookFailures = await runHooks(hooks, 'onToolStart', call);

      let checked: ArgsCheck;
      try {
        checked = await tool.check(rawArgs);
      } catch (err) {
        return failed(`could not check the arguments for ${req.tool}: ${message(err)}`, hookFailures);
      }
      if (checked.type === 'invalid') return failed(invalidArgs(req.tool, checked.error), hookFailures);
      let content: string;
      // Keep the activity visibly alive even when the tool never heartbeats itself (a local activity
      // has no heartbeats: its workflow task is what the server watches).
      let lastDetails: unknown;
      const keepAlive = ctx.info.isLocal ? undefined : setInterval(() => ctx.heartbeat(lastDetails), 5_000);
      try {
        content = resultToText(
          await tool.execute(checked.value, {
            idempotencyKey: `${req.workflowId}:${req.toolCallId}`,
            toolCallId: req.toolCallId,
            turnId: req.turnId,
            workflowId: req.workflowId,
            agent: req.agent,
            signal: ctx.cancellationSignal,
            heartbeat: (details) => {
              lastDetails = details;
              ctx.heartbeat(details);
            },
          }),
        );
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw err;
        return failed(`${req.tool} failed: ${message(err)}`, hookFailures);
      } finally {
        clearInterval(keepAlive);
      }
      content = truncateResult(content, req.maxResultChars);
      const durationMs = elapsed();
      hookFailures.push(...(await runHooks(hooks, 'onToolEnd', { ...call, result: content, durationMs })));
      return { ok: true, content, durationMs, hookFailures };
    },
  };
}
