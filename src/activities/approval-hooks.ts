/**
 * The approval hooks, as activities: a hook that decides a gated call (`approveTool`) or an answer
 * (`approveAnswer`) — Proceed, Deny or Ask, failing closed when it throws — and the observers told
 * when a call starts and stops waiting for a person (`onApprovalPending`, with the receipts it
 * returns, and `onApprovalResolved`). Failures are reported back as HookFailures, never thrown.
 */
import { log } from '@temporalio/activity';
import { combineOutcomes, toOutcome } from '../core/policy';
import type {
  AnswerContext,
  ApprovalPendingContext,
  ApprovalReceipt,
  ApprovalResolvedContext,
  ApproveToolResponse,
  HookFailure,
  ToolCallContext,
} from '../core/spec';
import type { TillerHooks } from '../agents/hooks';
import { message, receiptOf, runHooks } from './hooks';

export interface ApprovalHookDeps {
  /** The hooks that apply to an agent (its own plus the worker's global ones). */
  hooksFor(agent: string, inheritsFrom?: readonly string[]): readonly TillerHooks[];
}

export function createApprovalHookActivities({ hooksFor }: ApprovalHookDeps) {
  return {
    /**
     * Runs the `onApprovalPending` hooks; failures are reported, never thrown. What a hook that also
     * has `onApprovalResolved` returns is its receipt; other hooks' return values are ignored.
     */
    async notifyApprovalPending(
      ctx: ApprovalPendingContext,
    ): Promise<{ hookFailures: HookFailure[]; receipts?: ApprovalReceipt[] }> {
      const receipts: ApprovalReceipt[] = [];
      const hooks = hooksFor(ctx.call.agent, ctx.call.inheritsFrom);
      const hookFailures = await runHooks(hooks, 'onApprovalPending', ctx, (hook, value) => {
        if (value !== undefined && hook.onApprovalResolved) receipts.push(receiptOf(hook, value));
      });
      return { hookFailures, ...(receipts.length > 0 && { receipts }) };
    },

    /** Runs the `onApprovalResolved` hooks, each with its own receipts; failures are reported, never thrown. */
    async notifyApprovalResolved({
      receipts,
      ...ctx
    }: ApprovalResolvedContext): Promise<{ hookFailures: HookFailure[] }> {
      const own = (hook: TillerHooks) => ({
        ...ctx,
        receipts: receipts.filter((r) => r.hook === hook.name).map((r) => r.value),
      });
      return {
        hookFailures: await runHooks(hooksFor(ctx.call.agent, ctx.call.inheritsFrom), 'onApprovalResolved', own),
      };
    },

    approveTool(call: ToolCallContext): Promise<ApproveToolResponse> {
      // Fail closed: a broken approval hook denies, without a reason the model could be misled by.
      return decideByHooks(hooksFor(call.agent, call.inheritsFrom), 'approveTool', call, { action: 'deny' });
    },

    approveAnswer(answer: AnswerContext): Promise<ApproveToolResponse> {
      return decideByHooks(hooksFor(answer.agent, answer.inheritsFrom), 'approveAnswer', answer, {
        action: 'deny',
        reason: 'the answer could not be checked; answer again',
      });
    },
  };
}

/**
 * Asks each hook that has `kind` in turn and combines their outcomes; the first that throws decides
 * `failClosed` (logged and reported as a HookFailure), whatever the others said.
 */
async function decideByHooks<K extends 'approveTool' | 'approveAnswer'>(
  hooks: readonly TillerHooks[],
  kind: K,
  arg: Parameters<NonNullable<TillerHooks[K]>>[0],
  failClosed: ApproveToolResponse['outcome'],
): Promise<ApproveToolResponse> {
  const outcomes = [];
  for (const hook of hooks) {
    const fn = hook[kind] as ((a: typeof arg) => ReturnType<NonNullable<TillerHooks[K]>>) | undefined;
    if (!fn) continue;
    try {
      outcomes.push(toOutcome(await fn.call(hook, arg)));
    } catch (err) {
      log.warn(`${kind} hook failed; denying`, { hookName: hook.name, error: message(err) });
      return {
        outcome: failClosed,
        hookFailures: [{ hook: kind, ...(hook.name !== undefined && { hookName: hook.name }), error: message(err) }],
      };
    }
  }
  return { outcome: combineOutcomes(outcomes), hookFailures: [] };
}
