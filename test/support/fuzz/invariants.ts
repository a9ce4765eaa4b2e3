/**
 * The invariants every fuzz case is held to, checked from outside the turn (Temporal's description
 * and history, the workspace) as well as from its `state`:
 *
 *  I1 the turn reaches a defined state — completed, failed, or awaiting approval with nothing in
 *     flight — within BUDGETS.settleMs, and an awaiting turn still ends when cancelled;
 *  I2 `state` answers, and as JSON it is under BUDGETS.stateBytes;
 *  I3 no WorkflowTaskFailed event, no workflow task on a second attempt (see `signalFlood`);
 *  I4 the gated tool never ran unless a valid decision approved that call, and the sentinel file
 *     it was pointed at still exists;
 *  I5 history stays proportional to the input: no amplification (model cases), and a rejected
 *     decision adds only its own signal event plus a few KB (decision cases);
 *  I6 the worker's process is not altered (no prototype pollution).
 */
import fs from 'node:fs';
import type { Client } from '@temporalio/client';
import { BUDGETS } from './config';
import { GATED_TOOL } from './model-cases';
import { describe, failureText, forcedByServer, readHistory, type HistoryFacts } from './history';
import { tracer } from './trace';
import { errorText, queryState, settle, type Settled, type StateAnswer } from './turn-probe';

export interface TurnCheck {
  settled: Settled;
  answer: StateAnswer;
  history?: HistoryFacts;
  violations: string[];
  /** Server-forced workflow task failures tolerated under `signalFlood`. */
  forcedCloses: number;
}

export interface CheckOptions {
  /** Absolute path of the sentinel file the gated tool was pointed at. */
  sentinel: string;
  /** The client that reads the history (see FuzzEnv.reader); `client` when not given. */
  reader?: Client;
  /** Tool call ids (as in state) a valid decision approved: only these may run the gated tool. */
  approved: ReadonlySet<string>;
  /** Whether an approved call may have deleted the sentinel itself. */
  sentinelMayGo?: boolean;
  /** Check I5 for a model case: history beyond the model's answers is bounded by them. */
  amplification?: boolean;
  /**
   * A flood of signals: workflow tasks the server force-closed (see `forcedByServer`) are counted,
   * not charged, as long as the turn recovers — no workflow can stop a client sending a hundred
   * signals during one of its tasks. Everywhere else they are violations (a turn that fans out
   * hundreds of activities at once causes them itself).
   */
  signalFlood?: boolean;
}

const DEFINED = new Set(['COMPLETED', 'FAILED']);

/** Waits for the turn to settle (I1), then checks I2–I5 on what it left. */
export async function checkTurn(client: Client, turnId: string, opts: CheckOptions): Promise<TurnCheck> {
  const trace = tracer(turnId);
  const violations: string[] = [];
  const settled = await settle(client, turnId, BUDGETS.settleMs, opts.signalFlood);
  trace(`settled: ${settled.kind}`);
  if (settled.kind === 'timeout')
    violations.push(`I1 no defined state within ${BUDGETS.settleMs} ms (${settled.last})`);
  if (settled.kind === 'task-retrying') {
    violations.push(`I1 no defined state: the workflow task is on attempt ${settled.attempt} after ${settled.ms} ms`);
  }
  if (settled.kind === 'closed' && !DEFINED.has(settled.status))
    violations.push(`I1 the turn closed as ${settled.status}`);

  const answer = await queryState(client, turnId);
  trace(`state ${answer.ok ? 'answered' : 'did not answer'}`);
  violations.push(...stateViolations(answer));

  let history: HistoryFacts | undefined;
  try {
    history = await readHistory(opts.reader ?? client, turnId, BUDGETS.queryMs);
  } catch (err) {
    violations.push(`I5 history could not be read: ${errorText(err)}`);
  }
  trace('history read');
  const failures = (history?.taskFailures ?? []).filter((f) => !(opts.signalFlood && forcedByServer(f)));
  const forcedCloses = (history?.taskFailures.length ?? 0) - failures.length;
  if (failures.length > 0) {
    const kinds = [...new Set(failures.map(failureText))];
    violations.push(`I3 ${failures.length} WorkflowTaskFailed events: ${kinds.slice(0, 2).join(' | ')}`);
  }

  violations.push(...gateViolations(opts, history, answer));

  if (opts.amplification && history) {
    const allowed =
      BUDGETS.historyPerTurn +
      (1 + BUDGETS.historyPerModelByte) * history.modelResultBytes +
      BUDGETS.historyPerToolCall * history.toolActivities;
    if (history.bytes > allowed) {
      violations.push(
        `I5 history is ${history.bytes} bytes for ${history.modelResultBytes} bytes of model answers and ${history.toolActivities} tool activities (allowed ${allowed})`,
      );
    }
  }
  return { settled, answer, ...(history && { history }), violations, forcedCloses };
}

/** I2: `state` answers and is under budget. */
export function stateViolations(answer: StateAnswer): string[] {
  if (!answer.ok) return [`I2 state did not answer: ${answer.error}`];
  if (answer.bytes > BUDGETS.stateBytes) return [`I2 state is ${answer.bytes} bytes (budget ${BUDGETS.stateBytes})`];
  return [];
}

/** I4: the gated tool ran only for approved calls; the sentinel is still there. */
export function gateViolations(opts: CheckOptions, history: HistoryFacts | undefined, answer: StateAnswer): string[] {
  const out: string[] = [];
  for (const id of history?.gatedRuns ?? []) {
    if (!opts.approved.has(id)) out.push(`I4 ${GATED_TOOL} was scheduled to run for call ${clip(id)} with no approval`);
  }
  if (answer.ok) {
    for (const c of answer.state.toolCalls) {
      if (c.name === GATED_TOOL && c.startedAt !== undefined && !opts.approved.has(c.id)) {
        out.push(
          `I4 state shows ${GATED_TOOL} started for call ${clip(c.id)} with no approval (${c.decision?.via ?? 'no decision'})`,
        );
      }
    }
  }
  if (!opts.sentinelMayGo && !fs.existsSync(opts.sentinel)) out.push('I4 the sentinel file was deleted');
  return out;
}

const clip = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…(${s.length} chars)` : s);

/** I1 (cont.): an awaiting turn, cancelled, closes as cancelled within BUDGETS.cancelMs. */
export async function cancelViolations(client: Client, turnId: string): Promise<string[]> {
  try {
    await client.workflow.getHandle(turnId).cancel();
  } catch (err) {
    return [`I1 cancel was refused: ${errorText(err)}`];
  }
  const deadline = Date.now() + BUDGETS.cancelMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const d = await describe(client, turnId, BUDGETS.queryMs);
      if (d.status !== 'RUNNING') return d.status === 'CANCELLED' ? [] : [`I1 cancelled turn closed as ${d.status}`];
      last = `still RUNNING, workflow task attempt ${d.taskAttempt}`;
    } catch (err) {
      last = errorText(err);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return [`I1 cancel did not end the turn within ${BUDGETS.cancelMs} ms (${last})`];
}
