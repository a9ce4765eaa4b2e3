/**
 * Asking a turn how it is, with a deadline on every question: the `state` query (and its size), and
 * waiting for the turn to settle — closed, or awaiting approval with nothing in flight — or to show
 * that it cannot (a workflow task retrying).
 */
import type { Client } from '@temporalio/client';
import { stateQuery } from '../../../src/core/contract';
import type { TurnState } from '../../../src/core/state';
import { BUDGETS } from './config';
import { describe, within, type Description } from './history';

export type StateAnswer = { ok: true; state: TurnState; bytes: number } | { ok: false; error: string };

/** The `state` query, answered within the query budget, and its size as JSON. */
export async function queryState(client: Client, turnId: string): Promise<StateAnswer> {
  try {
    const querying = client.connection.withAbortSignal(AbortSignal.timeout(BUDGETS.queryMs), () =>
      client.workflow.getHandle(turnId).query(stateQuery),
    );
    const state = await within(querying, BUDGETS.queryMs, 'the state query');
    return { ok: true, state, bytes: Buffer.byteLength(JSON.stringify(state), 'utf8') };
  } catch (err) {
    return { ok: false, error: errorText(err) };
  }
}

export type Settled =
  | { kind: 'closed'; status: string; ms: number }
  | { kind: 'awaiting'; ms: number }
  | { kind: 'task-retrying'; attempt: number; ms: number }
  | { kind: 'timeout'; last: string; ms: number };

/**
 * Polls until the turn is closed, or awaits approval with no activity or workflow task pending; a
 * workflow task on its second attempt ends the wait at once (it is failing) unless `patient`, when
 * it may still recover within the bound (a task the server force-closed during a signal flood).
 */
export async function settle(
  client: Client,
  turnId: string,
  boundMs: number = BUDGETS.settleMs,
  patient = false,
): Promise<Settled> {
  const started = Date.now();
  const ms = () => Date.now() - started;
  let last = 'not described yet';
  let retrying = 0;
  while (ms() < boundMs) {
    let d: Description | undefined;
    try {
      d = await describe(client, turnId, BUDGETS.queryMs);
    } catch (err) {
      last = `describe failed: ${errorText(err)}`;
    }
    if (d) {
      last = `${d.status}, workflow task attempt ${d.taskAttempt}, ${d.pendingActivities} activities pending`;
      if (d.status !== 'RUNNING') return { kind: 'closed', status: d.status, ms: ms() };
      if (d.taskAttempt > 1 && !patient) return { kind: 'task-retrying', attempt: d.taskAttempt, ms: ms() };
      retrying = d.taskAttempt > 1 ? d.taskAttempt : 0;
      if (d.taskAttempt === 0 && d.pendingActivities === 0) {
        // Awaiting by the turn's own word, or by its search attribute when `state` cannot answer.
        const answer = await queryState(client, turnId);
        const status = answer.ok ? answer.state.status : d.tillerStatus;
        if (status === 'awaiting_approval') return { kind: 'awaiting', ms: ms() };
        last += answer.ok ? `, state ${status}` : `, state did not answer (${answer.error}), TillerStatus ${status}`;
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  if (retrying > 1) return { kind: 'task-retrying', attempt: retrying, ms: ms() };
  return { kind: 'timeout', last, ms: ms() };
}

export function errorText(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
