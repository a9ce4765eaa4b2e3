/**
 * The Block Kit messages: an approval request (who, what, why, the arguments as the channel may see
 * them, the preview, who may decide, the deadline, Approve / Deny) and the same call once resolved
 * (who approved or denied it and why, or that it expired; no buttons). Every text that comes from a
 * model, a tool or a person is escaped and cut to Slack's limits.
 */
import { describeApprovers } from '../../core/approvers';
import { decideHints, NOBODY_DECIDES } from '../../core/hints';
import { ANSWER_TOOL, type ApprovalPendingContext } from '../../core/spec';
import { REDACTED } from '../../core/redact';
import { codeBlock, cut, fitEscaped, inlineCode, LIMITS, quote, slackDate } from './mrkdwn';
import type { SlackOutcome } from './outcome';
import { ACTION_APPROVE, ACTION_DENY, buttonValue } from './refs';

export type SlackBlock = { type: string } & Record<string, unknown>;

/** A modal (views.open), as the deny dialog is. */
export interface SlackView {
  type: 'modal';
  callback_id: string;
  private_metadata: string;
  title: { type: 'plain_text'; text: string };
  submit: { type: 'plain_text'; text: string };
  close: { type: 'plain_text'; text: string };
  blocks: SlackBlock[];
}

export interface SlackMessage {
  /** The notification and accessibility text. */
  text: string;
  blocks: SlackBlock[];
}

/** The facts of a call that every message shows. */
export interface CallFacts {
  agent: string;
  /** The workflow id the decision goes to. */
  workflowId: string;
  toolCallId: string;
  tool: string;
  args: unknown;
}

export interface RenderOptions {
  /** Show arguments and previews; otherwise `[redacted]`, as the gateway shows them without the `args` right. */
  showArgs: boolean;
}

const ARGS_MAX = 2_500;
const PREVIEW_MAX = 1_500;
const WHY_MAX = 600;
/** An answer gate's answer: what the approver decides, so it is shown (cut) even where arguments are not. */
const ANSWER_MAX = 2_500;

const plain = (text: string, max: number) => ({ type: 'plain_text', text: cut(text, max), emoji: true });
const header = (text: string): SlackBlock => ({ type: 'header', text: plain(text, LIMITS.headerText) });
const section = (text: string): SlackBlock => ({ type: 'section', text: { type: 'mrkdwn', text } });
const context = (parts: string[]): SlackBlock => ({
  type: 'context',
  elements: [{ type: 'mrkdwn', text: cut(parts.join(' · '), LIMITS.contextText) }],
});

function argsText(args: unknown, opts: RenderOptions): string {
  if (!opts.showArgs) return REDACTED;
  if (typeof args === 'string') return args;
  return JSON.stringify(args, null, 2) ?? String(args);
}

function argumentsBlock(call: CallFacts, opts: RenderOptions): SlackBlock {
  return section(`*Arguments*\n${codeBlock(argsText(call.args, opts), ARGS_MAX)}`);
}

const where = (call: CallFacts) => `turn ${inlineCode(call.workflowId)} · call ${inlineCode(call.toolCallId)}`;

/**
 * An answer gate's answer (the pseudo-tool `final_answer`, arguments `{ text }`): the model's words, which
 * the approver must read to decide, shown once — no separate "why", arguments or preview.
 */
function answerOf(ctx: ApprovalPendingContext): string | undefined {
  if (ctx.call.tool !== ANSWER_TOOL) return undefined;
  const text = (ctx.call.args as { text?: unknown } | null)?.text;
  return typeof text === 'string' ? text : undefined;
}

/** The request a human decides, with Approve / Deny buttons. */
export function pendingMessage(
  ctx: ApprovalPendingContext,
  opts: RenderOptions & { why?: string | undefined },
): SlackMessage {
  const { call } = ctx;
  const facts: CallFacts = { ...call };
  const title = ctx.escalated
    ? 'Escalated: approval needed'
    : ctx.reminder > 0
      ? `Reminder ${ctx.reminder}: approval needed`
      : 'Approval needed';
  const agent = fitEscaped(call.agent, 200);
  const answer = answerOf(ctx);
  const ask = `*${agent}* wants to call ${inlineCode(call.tool)}.`;
  const blocks: SlackBlock[] =
    answer !== undefined
      ? [
          header(`${title}: the answer of ${call.agent}`),
          section(`*${agent}* wants to give this answer:\n${codeBlock(answer, ANSWER_MAX)}`),
        ]
      : [
          header(`${title}: ${call.tool}`),
          section(opts.why ? `${ask}\n${quote(opts.why, WHY_MAX)}` : ask),
          argumentsBlock(facts, opts),
        ];
  if (ctx.preview !== undefined && answer === undefined) {
    const preview = opts.showArgs ? ctx.preview : REDACTED;
    blocks.push(section(`*Preview*\n${codeBlock(preview, PREVIEW_MAX)}`));
  }
  const who = ctx.approvers?.length
    ? `may decide: ${fitEscaped(describeApprovers(ctx.approvers), 580)}`
    : 'anyone may decide';
  const when =
    ctx.expiresAt !== undefined
      ? `${ctx.escalated ? 'expires' : 'deadline'} ${slackDate(ctx.expiresAt)}`
      : 'no deadline';
  blocks.push(context([who, when, where(facts)]));
  const value = buttonValue({
    turn: call.workflowId,
    call: call.toolCallId,
    tool: call.tool,
    // The turn's own digest (salted): one computed here would not match, and the click would decide nothing.
    digest: ctx.argsDigest,
  });
  if (value !== undefined) {
    blocks.push({
      type: 'actions',
      block_id: 'tiller_decision',
      elements: [
        { type: 'button', action_id: ACTION_APPROVE, text: plain('Approve', 75), style: 'primary', value },
        { type: 'button', action_id: ACTION_DENY, text: plain('Deny', 75), style: 'danger', value },
      ],
    });
  } else {
    // Whole commands, each in its own section (a context holds 2,000 characters; ids this long may need more).
    const hints = decideHints({
      turnId: call.workflowId,
      id: call.toolCallId,
      ...(ctx.approvers && { approvers: ctx.approvers }),
    });
    if (hints) {
      blocks.push(context(['The ids are too long for buttons: decide with one of these commands.']));
      blocks.push(section(inlineCode(hints.approve, 2_900)), section(inlineCode(hints.deny, 2_900)));
    } else blocks.push(context([`The ids are too long for buttons; ${NOBODY_DECIDES}.`]));
  }
  const subject = answer !== undefined ? `the answer of ${call.agent}` : `${call.tool} (${call.agent})`;
  return { text: fitEscaped(`${title}: ${subject}`, LIMITS.fallbackText), blocks };
}

/** What the outcome line says. */
function outcomeText(outcome: SlackOutcome): { title: string; line: string } {
  const by = (approver?: string) => (approver !== undefined ? `*${fitEscaped(approver, 200)}*` : 'an unnamed approver');
  switch (outcome.type) {
    case 'approved': {
      const trust =
        outcome.scope === 'turn'
          ? ', trusted for the rest of the turn'
          : outcome.scope === 'session'
            ? ', trusted for the rest of the session'
            : '';
      const edited = outcome.edited ? ' with edited arguments' : '';
      return { title: 'Approved', line: `:white_check_mark: *Approved* by ${by(outcome.approver)}${edited}${trust}.` };
    }
    case 'denied': {
      const reason = outcome.reason ? `\n${quote(outcome.reason, 2_100)}` : '';
      return { title: 'Denied', line: `:no_entry: *Denied* by ${by(outcome.approver)}.${reason}` };
    }
    case 'timed_out':
      return { title: 'Expired', line: ':hourglass: *Expired*: nobody decided in time; the model was told so.' };
    case 'ended':
      return {
        title: 'Not decided',
        line: `:black_square_for_stop: *Not decided*: the turn ended (${outcome.turnStatus}) while the call waited.`,
      };
  }
}

/** The resolved call: who decided and how (or that it expired), without buttons. */
export function resolvedMessage(call: CallFacts, outcome: SlackOutcome, opts: RenderOptions): SlackMessage {
  const { title, line } = outcomeText(outcome);
  const at = 'at' in outcome && outcome.at !== undefined ? [slackDate(outcome.at)] : [];
  const blocks: SlackBlock[] = [
    header(`${title}: ${call.tool}`),
    section(line),
    section(`*${fitEscaped(call.agent, 200)}* asked to call ${inlineCode(call.tool)}.`),
    argumentsBlock(call, opts),
    context([...at, where(call)]),
  ];
  const who = 'approver' in outcome && outcome.approver !== undefined ? ` by ${outcome.approver}` : '';
  return { text: fitEscaped(`${title}${who}: ${call.tool} (${call.agent})`, LIMITS.fallbackText), blocks };
}
