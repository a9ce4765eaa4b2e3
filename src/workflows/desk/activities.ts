/**
 * The activities behind a turn's approval desk: edited arguments are checked against the tool's schema
 * in the worker (a sub-agent's against Tiller's own, right here), and `onApprovalPending` /
 * `onApprovalResolved` hooks fire when the agent has any.
 */
import type { AgentSpec } from '../../core/spec';
import { subAgentInput } from '../../core/subagents';
import { acts, hookOptions } from '../activities';
import type { DeskDeps } from './types';
import { PATCH_APPROVAL_RESOLVED_HOOK } from '../patches';
import type { TurnRecorder } from '../recorder';

/** `agent` is the turn's spec once it is known. */
export function deskActivities(
  recorder: TurnRecorder,
  agent: () => AgentSpec | undefined,
): Pick<
  DeskDeps,
  'validateArgs' | 'notifyPending' | 'notifyResolved' | 'maxArgsChars' | 'keepsReceipts' | 'verifiesApprovers'
> {
  return {
    maxArgsChars: () => agent()?.limits?.maxToolArgChars,
    verifiesApprovers: () => agent()?.verifiedApprovers === true,
    validateArgs(tool, args) {
      if (!agent()?.tools.some((t) => t.name === tool && t.subAgent)) {
        return acts.validateToolArgs.executeWithOptions({ ...hookOptions, summary: `validate edited ${tool} args` }, [
          { tool, args },
        ]);
      }
      const checked = subAgentInput(tool, args);
      return Promise.resolve(checked.type === 'valid' ? { ok: true } : { ok: false, error: checked.error });
    },
    keepsReceipts: () => agent()?.hooks.onApprovalResolved === true,
    async notifyPending(ctx) {
      if (!agent()?.hooks.onApprovalPending) return [];
      const summary = `notify ${ctx.call.tool} pending${ctx.reminder ? ` (reminder ${ctx.reminder})` : ''}`;
      const done = await acts.notifyApprovalPending.executeWithOptions({ ...hookOptions, summary }, [ctx]);
      recorder.hookFailures(done.hookFailures, ctx.call.toolCallId);
      return done.receipts ?? [];
    },
    async notifyResolved(ctx, receipts) {
      if (!agent()?.hooks.onApprovalResolved) return;
      const kept = await receipts;
      // A new command: checked where it is scheduled, so histories without the marker replay without it.
      if (!recorder.version.has(PATCH_APPROVAL_RESOLVED_HOOK)) return;
      const summary = `notify ${ctx.call.tool} ${ctx.outcome.replace('_', ' ')}`;
      const done = await acts.notifyApprovalResolved.executeWithOptions({ ...hookOptions, summary }, [
        { ...ctx, receipts: kept },
      ]);
      recorder.hookFailures(done.hookFailures, ctx.call.toolCallId);
    },
  };
}
