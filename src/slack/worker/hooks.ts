/**
 * `slackApprovals`: the worker-side Slack hook. When a gated call waits (and on each reminder and
 * escalation) it posts the request with Approve / Deny buttons to a channel, and returns the message
 * as its receipt; when the call is approved, denied or expires — from Slack or any other client — it
 * updates every message it posted for the call to say so, without buttons.
 *
 * It runs in the hook activities: a Slack outage is retried by the WebClient and then recorded as
 * HOOK_FAILED; the turn never waits for it and never fails because of it.
 */
import { Context } from '@temporalio/activity';
import { z } from 'zod';
import type { TillerHooks } from '../../agents/hooks';
import { stateQuery, turnStateQuery } from '../../core/contract';
import { ANSWER_TOOL, type ToolCallContext } from '../../core/spec';
import { SlackApi, type SlackApiOptions } from '../common/api';
import { pendingMessage, resolvedMessage } from '../common/messages';
import { outcomeOfResolved } from '../common/outcome';

/** {@link slackApprovals}'s options: the channel, what the messages show, and the Web API client's settings. */
export interface SlackApprovalsOptions extends SlackApiOptions {
  /** Where requests are posted: a channel id (`C0123ABCD`) or name the bot is a member of. */
  channel: string;
  /** Show tool arguments and previews in the channel (default false: `[redacted]`). */
  showArgs?: boolean;
  /** Quote the model's words before the call as its "why" (read from the turn's state; default true). */
  why?: boolean;
  /** The hook's name in HOOK_FAILED events and receipts (default `slack`). */
  name?: string;
  /** A ready API client (tests, or a shared one); else one is built from the options. */
  api?: SlackApi;
}

/** The receipt of a posted request: what chat.update needs. */
export const SlackReceipt = z.strictObject({ channel: z.string().min(1).max(64), ts: z.string().min(1).max(64) });
export type SlackReceipt = z.infer<typeof SlackReceipt>;

const WHY_QUERY_MS = 2_000;

/**
 * Hooks that post each waiting call to a Slack channel with Approve / Deny buttons, post reminders and
 * escalations, and update the messages once the call is approved, denied or expired (from any client).
 */
export function slackApprovals(opts: SlackApprovalsOptions): TillerHooks {
  const api = opts.api ?? new SlackApi(opts);
  const showArgs = opts.showArgs ?? false;
  return {
    name: opts.name ?? 'slack',
    async onApprovalPending(ctx): Promise<SlackReceipt> {
      // An answer gate's message shows the answer itself: the model's words before it are the same text.
      const why = opts.why === false || ctx.call.tool === ANSWER_TOOL ? undefined : await modelReason(ctx.call);
      return api.postMessage(opts.channel, pendingMessage(ctx, { showArgs, why }));
    },
    async onApprovalResolved(ctx): Promise<void> {
      const message = resolvedMessage(ctx.call, outcomeOfResolved(ctx), { showArgs });
      const receipts = ctx.receipts.flatMap((r) => {
        const parsed = SlackReceipt.safeParse(r);
        return parsed.success ? [parsed.data] : [];
      });
      const failures: string[] = [];
      for (const { channel, ts } of receipts) {
        await api.updateMessage(channel, ts, message).catch((err: Error) => failures.push(err.message));
      }
      if (failures.length > 0) {
        throw new Error(`${failures.length} of ${receipts.length} Slack messages not updated: ${failures[0]}`);
      }
    },
  };
}

/**
 * What the model said before it asked for the call (its text in the MODEL_CALLED event), from the
 * turn's `state` query; undefined when it said nothing or the turn cannot be asked right now.
 */
async function modelReason(call: ToolCallContext): Promise<string | undefined> {
  try {
    const { client } = Context.current();
    const state = await client.connection.withDeadline(Date.now() + WHY_QUERY_MS, () =>
      // A session's inline turn answers `turnState` (the session's `state` is the session's).
      client.workflow.getHandle(call.workflowId).query(call.turnId === call.workflowId ? stateQuery : turnStateQuery),
    );
    const asked = state.events.find(
      (e) => e.type === 'MODEL_CALLED' && e.toolCalls.some((t) => t.id === call.toolCallId),
    );
    const text = asked?.type === 'MODEL_CALLED' ? asked.text?.trim() : undefined;
    return text || undefined;
  } catch {
    return undefined;
  }
}
