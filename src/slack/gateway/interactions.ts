/**
 * What the gateway does with a verified Slack interaction. Slack wants an answer within 3 seconds,
 * so `receive` answers at once (`body`) and hands back the work to do after (`then`): read the turn,
 * check the gate's approver rules for the mapped approver, decide through the same `decide` update as
 * every client, and update the message — or tell the clicker why nothing was decided (ephemerally).
 *
 * - Approve: decides. Deny: opens the reason modal (views.open with the click's trigger_id); its
 *   submission decides; when the modal cannot open, Deny decides without a reason.
 * - A Slack user not in the approver map decides nothing; nor does a button or modal that does not
 *   name a Tiller call. The turn is unchanged either way.
 */
import { createHash } from 'node:crypto';
import { describeApprovers, mayDecide } from '../../core/approvers';
import type { Decision, RecordedDecision } from '../../core/schemas';
import type { TurnState } from '../../core/state';
import type { SlackApi } from '../common/api';
import type { SlackApprover, SlackApprovers } from '../common/approvers';
import { resolvedMessage, type CallFacts, type SlackMessage } from '../common/messages';
import { denyModal } from './modal';
import { outcomeOfDecision, outcomeOfRecord } from '../common/outcome';
import type { BlockActions, Interaction, ViewSubmission } from './payloads';
import {
  ACTION_APPROVE,
  ACTION_DENY,
  CallRef,
  decode,
  DENY_VIEW,
  DenyMeta,
  MAX_REASON,
  REASON_BLOCK,
  REASON_INPUT,
  type MessageRef,
} from '../common/refs';
import { fitEscaped } from '../common/mrkdwn';

/** A refusal from the turn or the gateway, with a message fit to show the clicker. */
export class DeskError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/**
 * How the gateway reads and decides turns (its own checked paths); failures are {@link DeskError}s. A
 * read carries the decide that follows it, so a click describes the turn once (the read's worker check).
 */
export interface SlackDesk {
  read(turnId: string): Promise<DeskRead>;
}

/** A turn as read for a decision, and the decide that goes with that read. */
export interface DeskRead {
  state: TurnState;
  decide(decision: Decision, updateId?: string): Promise<RecordedDecision>;
}

export interface SlackInteractionsOptions {
  api: SlackApi;
  approvers: SlackApprovers;
  /** Show arguments in the updated message (as the worker posts them). */
  showArgs: boolean;
  /** Unexpected failures (Slack unreachable, a bug); default: one line on stderr. */
  onError?: (err: unknown) => void;
}

/** What to answer Slack now, and the work to do after answering. */
export interface Reception {
  body?: Record<string, unknown>;
  then?: () => Promise<void>;
}

type Choice = { approved: true } | { approved: false; reason?: string };

const notMapped = (userId: string) =>
  `Nothing was decided: Slack user ${userId} is not mapped to a Tiller approver (TILLER_SLACK_APPROVERS).`;
const notOurs = 'Nothing was decided: this does not name a Tiller call.';

export class SlackInteractions {
  private readonly report: (err: unknown) => void;

  constructor(
    private readonly opts: SlackInteractionsOptions,
    private readonly desk: SlackDesk,
  ) {
    this.report =
      opts.onError ?? ((err) => process.stderr.write(`slack: ${err instanceof Error ? err.message : String(err)}\n`));
  }

  receive(interaction: Interaction): Reception {
    return interaction.type === 'block_actions' ? this.onAction(interaction) : this.onSubmission(interaction);
  }

  private onAction(i: BlockActions): Reception {
    const action = i.actions.find((a) => a.action_id === ACTION_APPROVE || a.action_id === ACTION_DENY);
    if (!action) return {};
    const channel = i.container?.channel_id ?? i.channel?.id;
    const ts = i.container?.message_ts ?? i.message?.ts;
    const where: MessageRef = {
      ...(channel !== undefined && { channel }),
      ...(ts !== undefined && { ts }),
      ...(i.response_url !== undefined && { responseUrl: i.response_url }),
    };
    const ref = decode(CallRef, action.value);
    if (!ref) return { then: () => this.tell(where, notOurs) };
    const approver = this.opts.approvers.lookup(i.user.id);
    if (!approver) return { then: () => this.tell(where, notMapped(i.user.id)) };
    // Idempotent per click, and opaque: update ids are stored in plaintext even with the codec on.
    const updateId =
      action.action_ts !== undefined
        ? `slack:${createHash('sha256').update(i.user.id).update('\0').update(action.action_ts).digest('hex').slice(0, 32)}`
        : undefined;
    if (action.action_id === ACTION_APPROVE) {
      return { then: () => this.settle(ref, approver, { approved: true }, where, updateId) };
    }
    return { then: () => this.askReason(i.trigger_id, { ref, where }, approver, updateId) };
  }

  /** Opens the reason modal; when it cannot open, denies without a reason. */
  private async askReason(
    triggerId: string | undefined,
    meta: DenyMeta,
    approver: SlackApprover,
    updateId?: string,
  ): Promise<void> {
    const view = triggerId !== undefined ? denyModal(meta) : undefined;
    if (view) {
      try {
        await this.opts.api.openView(triggerId!, view);
        return;
      } catch (err) {
        this.report(err);
      }
    }
    await this.tell(meta.where, 'The reason dialog could not open: denying without a reason.');
    await this.settle(meta.ref, approver, { approved: false }, meta.where, updateId);
  }

  private onSubmission(i: ViewSubmission): Reception {
    if (i.view.callback_id !== DENY_VIEW) return {};
    const fail = (text: string): Reception => ({
      body: { response_action: 'errors', errors: { [REASON_BLOCK]: text } },
    });
    const meta = decode(DenyMeta, i.view.private_metadata);
    if (!meta) return fail(notOurs);
    const approver = this.opts.approvers.lookup(i.user.id);
    if (!approver) return fail(notMapped(i.user.id));
    const reason = (i.view.state?.values[REASON_BLOCK]?.[REASON_INPUT]?.value ?? '').trim();
    if (reason.length > MAX_REASON) return fail(`The reason is longer than ${MAX_REASON} characters.`);
    const choice: Choice = { approved: false, ...(reason && { reason }) };
    return { then: () => this.settle(meta.ref, approver, choice, meta.where, `slack:${i.user.id}:${i.view.id}`) };
  }

  /** Checks the call and the approver, decides, and updates the message (or says why not). */
  private async settle(
    ref: CallRef,
    approver: SlackApprover,
    choice: Choice,
    where: MessageRef,
    updateId?: string,
  ): Promise<void> {
    let read: DeskRead;
    try {
      read = await this.desk.read(ref.turn);
    } catch (err) {
      return this.tell(where, `Nothing was decided: ${this.explain(err)}`);
    }
    const { state } = read;
    const pending = state.pendingApprovals.find((p) => p.id === ref.call);
    if (!pending) return this.notPending(state, ref, where);
    // The gate's rules for the mapped name, before anything is written to the turn (as the gateway does).
    if (!mayDecide(pending.approvers, approver.name, approver.groups)) {
      const allowed = describeApprovers(pending.approvers ?? []);
      return this.tell(where, `Nothing was decided: ${approver.name} may not decide ${ref.tool}; allowed: ${allowed}.`);
    }
    let recorded: RecordedDecision;
    try {
      recorded = await read.decide(
        {
          id: ref.call,
          ...choice,
          approver: approver.name,
          ...(approver.groups.length > 0 && { approverGroups: approver.groups }),
          argsDigest: ref.digest,
        },
        updateId,
      );
    } catch (err) {
      return this.tell(where, `Nothing was decided: ${this.explain(err)}`);
    }
    const facts = this.facts(state, ref, pending.tool, pending.args);
    await this.update(where, resolvedMessage(facts, outcomeOfDecision(recorded), this.opts));
  }

  /** The call no longer waits: say so, and bring the message up to date with how it ended. */
  private async notPending(state: TurnState, ref: CallRef, where: MessageRef): Promise<void> {
    const record = state.toolCalls.find((c) => c.id === ref.call);
    if (!record) return this.tell(where, `Nothing was decided: turn ${ref.turn} has no call ${ref.call}.`);
    await this.tell(where, `Nothing was decided: ${ref.tool} no longer waits for a decision (${record.status}).`);
    const outcome = outcomeOfRecord(record, state.status);
    const facts = this.facts(state, ref, record.name, record.args);
    if (outcome) await this.update(where, resolvedMessage(facts, outcome, this.opts));
  }

  private facts(state: TurnState, ref: CallRef, tool: string, args: unknown): CallFacts {
    return { agent: state.agent, workflowId: ref.turn, toolCallId: ref.call, tool, args };
  }

  /** An ephemeral message to the clicker (only they see it). */
  private async tell(where: MessageRef, text: string): Promise<void> {
    if (where.responseUrl === undefined) return;
    const body = { response_type: 'ephemeral', replace_original: false, text: fitEscaped(text, 2_000) };
    await this.opts.api.respond(where.responseUrl, body).catch(this.report);
  }

  private async update(where: MessageRef, message: SlackMessage): Promise<void> {
    if (where.channel === undefined || where.ts === undefined) return;
    await this.opts.api.updateMessage(where.channel, where.ts, message).catch(this.report);
  }

  private explain(err: unknown): string {
    if (err instanceof DeskError) return err.message;
    this.report(err);
    return 'internal error';
  }
}
