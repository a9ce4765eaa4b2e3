/**
 * Following a turn live (`tiller run`, `tiller dev --demo`): one line (or one JSON object) per event,
 * an inline decision when the turn pauses on a terminal, or instructions for other clients when not.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { DecisionRejectedError, TERMINAL_STATUSES, type TillerClient } from '../client';
import type { TurnEvent } from '../core/state/events';
import type { TurnResult } from '../core/schemas';
import type { TemporalSettings } from '../client/connect';
import { CliError, EXIT, isConnectionError, isNoPollerError, noWorkerMessage, unreachable } from './errors';
import { tillerCommand } from '../core/hints';
import { compactJson, decideInstructions, formatDecision, formatEvent, formatUsage } from './format';
import { Terminal, WithdrawnError, type Choice } from './prompt';
import { colourLine, useColour } from './colour';
import { LiveTextPrinter } from './live-text';
import { hasWorker } from './temporal';

export interface FollowOptions {
  tiller: TillerClient;
  settings: TemporalSettings;
  turnId: string;
  /** One JSON event per line on stdout; notes go to stderr. */
  json: boolean;
  /** Offer an inline decision (stdin and stdout are TTYs). */
  interactive: boolean;
  /** Without a terminal: keep following after a pause instead of exiting 0 (tiller dev --demo). */
  keepFollowing: boolean;
  approver: string;
  /** Stops following (returns 130). */
  signal?: AbortSignal;
}

interface Pending {
  id: string;
  tool: string;
  args: unknown;
  approvers?: string[];
}

const decidedBy = (e: TurnEvent): string => {
  if (e.type === 'TOOL_APPROVED') return `approved by ${e.decision.approver ?? 'someone'} via ${e.decision.via}`;
  if (e.type === 'TOOL_DENIED') return `denied by ${e.decision?.approver ?? 'someone'} via ${e.decision?.via ?? '?'}`;
  return 'the approval timed out';
};

export async function followTurn(o: FollowOptions): Promise<number> {
  const { tiller, turnId } = o;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const term = o.interactive
    ? new Terminal(process.stdin, o.json ? process.stderr : process.stdout, () => stop.abort())
    : undefined;
  const write = (stream: NodeJS.WriteStream, line: string) => stream.write(`${line}\n`);
  const colour = !o.json && useColour(process.stdout);
  // Tokens so far, after each model call: the turn's running total.
  let tokens = 0;
  const line = (e: TurnEvent) => {
    let text = formatEvent(e);
    if (e.type === 'MODEL_CALLED') {
      tokens += e.usage.inputTokens + e.usage.outputTokens;
      text += ` · Σ ${tokens} tokens`;
    }
    return colourLine(text, colour);
  };
  const emit = (e: TurnEvent) =>
    o.json ? write(process.stdout, JSON.stringify(e)) : term ? term.print(line(e)) : write(process.stdout, line(e));
  const note = (line: string) => (term ? term.print(line) : write(o.json ? process.stderr : process.stdout, line));
  // The model's text as it streams (not in --json: its stream is the turn's events only).
  const text = new LiveTextPrinter();
  const events = (afterSeq: number) =>
    o.json
      ? tiller.watch(turnId, { afterSeq, signal: stop.signal })
      : tiller.watchLive(turnId, { afterSeq, signal: stop.signal });
  const instructions = (p: Pending) => {
    note(`turn ${turnId} waits for a decision on ${p.tool} (id ${p.id}). Decide from any client:`);
    for (const line of decideInstructions({ turnId, ...p }, o.settings)) note(line);
  };

  // Inline decisions: one question at a time, withdrawn when another client decides first.
  const queue: Pending[] = [];
  const decided = new Set<string>();
  const mine = new Set<string>();
  let active: Pending | undefined;
  const send = async (p: Pending, choice: Exclude<Choice, { type: 'wait' }>) => {
    mine.add(p.id);
    try {
      const recorded =
        choice.type === 'approve'
          ? await tiller.approve(turnId, p.id, { scope: choice.scope, approver: o.approver })
          : await tiller.deny(turnId, p.id, { approver: o.approver, ...(choice.reason && { reason: choice.reason }) });
      note(`→ ${formatDecision(recorded)}`);
    } catch (err) {
      mine.delete(p.id);
      note(
        err instanceof DecisionRejectedError
          ? `rejected: ${err.message}`
          : `could not decide: ${(err as Error).message}`,
      );
    }
  };
  const pump = async (): Promise<void> => {
    if (!term || active || stop.signal.aborted) return;
    const next = queue.shift();
    if (!next) return;
    active = next;
    try {
      const choice = await term.ask(`${next.tool} ${compactJson(next.args, 200)} needs a decision (id ${next.id}):`);
      if (choice.type === 'wait') instructions(next);
      else await send(next, choice);
    } catch (err) {
      if (!(err instanceof WithdrawnError)) note(`prompt failed: ${(err as Error).message}`);
    } finally {
      active = undefined;
    }
    return pump();
  };

  let pausedHere = false;
  /** Acts on an event; returns a note to print after the event's line. */
  const handle = (e: TurnEvent): string | undefined => {
    if (e.type === 'APPROVAL_REQUESTED') {
      if (decided.has(e.toolCallId)) return undefined;
      const p = { id: e.toolCallId, tool: e.tool, args: e.args, ...(e.approvers && { approvers: e.approvers }) };
      if (term) {
        queue.push(p);
        void pump();
      } else if (o.keepFollowing) instructions(p);
      else pausedHere = true;
    } else if (e.type === 'TOOL_APPROVED' || e.type === 'TOOL_DENIED' || e.type === 'APPROVAL_TIMED_OUT') {
      decided.add(e.toolCallId);
      const queued = queue.findIndex((p) => p.id === e.toolCallId);
      if (queued >= 0) queue.splice(queued, 1);
      if (active?.id === e.toolCallId && !mine.has(e.toolCallId)) {
        term?.cancel();
        return `  (decided from another client: ${decidedBy(e)})`;
      }
    }
    return undefined;
  };

  let lastSeq = 0;
  let failures = 0;
  try {
    for (;;) {
      try {
        for await (const e of events(lastSeq)) {
          failures = 0;
          if (e.type === 'delta' || e.type === 'discard') {
            for (const l of text.feed(e)) note(l);
            continue;
          }
          lastSeq = e.seq;
          if (e.type === 'MODEL_CALLED') for (const l of text.flush()) note(l);
          if (e.type === 'APPROVAL_REQUESTED') {
            emit(e);
            handle(e);
          } else {
            const after = handle(e); // closes a prompt another client answered before its line prints
            emit(e);
            if (after) note(after);
          }
          if (pausedHere) break;
        }
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) throw new CliError(`no turn ${turnId}`, EXIT.notFound);
        if (isConnectionError(err)) throw unreachable(o.settings.address, err);
        if (isNoPollerError(err) && !(await hasWorker(tiller, tiller.taskQueue))) {
          throw new CliError(`${noWorkerMessage(tiller.taskQueue)} (turn ${turnId} keeps waiting)`, EXIT.unavailable);
        }
        if (++failures > 5) throw err;
        await new Promise((r) => setTimeout(r, 300 * failures));
        continue;
      }
      if (stop.signal.aborted) {
        term?.close();
        note(`stopped following turn ${turnId}; it carries on: \`${tillerCommand(['state', turnId], o.settings)}\``);
        return EXIT.interrupted;
      }
      if (!pausedHere) break; // the turn ended
      pausedHere = false;
      // Paused without a terminal: show everything up to now, then how to decide, and leave it waiting.
      for (let more = true; more;) {
        const page = await tiller.events(turnId, { afterSeq: lastSeq });
        for (const e of page.events) {
          lastSeq = e.seq;
          emit(e);
        }
        more = page.more;
      }
      const summary = await tiller.summary(turnId);
      if (summary.pendingApprovals.length > 0) {
        for (const p of summary.pendingApprovals) instructions(p);
        note(`the turn keeps waiting; see it with \`${tillerCommand(['state', turnId], o.settings)}\``);
        return EXIT.ok;
      }
      if (TERMINAL_STATUSES.has(summary.status)) break;
    }
  } finally {
    term?.close();
    o.signal?.removeEventListener('abort', onAbort);
  }

  let result: TurnResult;
  try {
    result = await tiller.result(turnId);
  } catch (err) {
    note(`turn ${turnId} did not complete: ${(err as Error).message}`);
    return EXIT.failed;
  }
  if (!o.json) {
    // Shown live already: the turn's output is the last model call's text.
    if (result.output && !text.lastCallShown) note(`\n${result.output.trimEnd()}\n`);
    note(`usage: ${formatUsage(result.usage)} · ${result.toolCalls.length} tool call(s)`);
  }
  if (result.status === 'completed') return EXIT.ok;
  note(`turn ${turnId} ${result.status}${result.error ? `: ${result.error}` : ''}`);
  return EXIT.failed;
}
