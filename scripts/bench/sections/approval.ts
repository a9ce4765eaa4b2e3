/**
 * Approval → resume: a turn pauses on a gated tool; the bench sends the `decide` update and takes
 * the time from the update's acknowledgement (client side, `executeUpdate` resolved) to the gated
 * tool's `execute` starting (the tool marks `performance.now()`; same process, same clock). Also
 * from sending the update to the tool's start, and the update's round trip alone.
 *
 * "cached": default worker cache, the turn stays in memory while it waits. "evicted":
 * `maxCachedWorkflows: 0`, so every workflow task — the update's included — replays the history.
 * The Temporal baseline (a bare workflow waiting on an update before an activity) runs the same
 * procedure, its turns alternating with Tiller's.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowIdReusePolicy } from '@temporalio/client';
import { callId, GATED_AGENT, planInput } from '../fixture';
import type { BenchEnv } from '../env';
import { roundSummary, sleep, summarize, type Summary } from '../stats';
import { baselineWorker } from './baseline';

export type CacheMode = 'cached' | 'evicted';

export interface ApprovalStats {
  approvals: number;
  /** Update acknowledged (client) → tool execute started. Negative when the tool started before the ack arrived. */
  ackToToolStartMs: Summary;
  /** Update sent → tool execute started. */
  sendToToolStartMs: Summary;
  /** Update sent → acknowledged. */
  updateRoundTripMs: Summary;
}

export interface ApprovalResult extends ApprovalStats {
  cache: CacheMode;
  maxCachedWorkflows: number | 'default';
  approvalsPerTurn: number;
  baseline: ApprovalStats;
}

/** What the procedure needs from Tiller or from the baseline. */
interface Gated {
  start(turnId: string, gates: number): Promise<unknown>;
  isPending(turnId: string, k: number): Promise<boolean>;
  decide(turnId: string, k: number): Promise<unknown>;
  startKey(turnId: string, k: number): string;
  finish(turnId: string): Promise<unknown>;
}

const PER_TURN = 20;

interface Sample {
  ack: number;
  send: number;
  rt: number;
}

async function waitPending(g: Gated, turnId: string, k: number, intervalMs: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if (await g.isPending(turnId, k)) return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    if (Date.now() > deadline) throw new Error(`${turnId}: gate ${k} never became pending`);
    await sleep(intervalMs);
  }
}

async function gatedTurn(env: BenchEnv, g: Gated, count: number, pollMs: number): Promise<Sample[]> {
  const turnId = `approval-${randomUUID()}`;
  await g.start(turnId, count);
  const samples: Sample[] = [];
  for (let k = 0; k < count; k++) {
    await waitPending(g, turnId, k, pollMs);
    await sleep(20); // let the worker go idle: nothing in flight when the decision arrives
    const started = env.rec.gatedStart(g.startKey(turnId, k));
    const t0 = performance.now();
    const refusal = await g.decide(turnId, k).then(
      () => undefined,
      (err: unknown) => err,
    );
    if (refusal !== undefined) {
      // "not pending (status: running)": the decision was refused, not applied. Diagnosed from a dumped
      // history (a ~10 s stall on a loaded machine): the workflow task that made the call pending timed out
      // (start-to-close) after a query had already read its result from the worker's cache; the retried
      // task delivered the update before the job that makes the call pending, and the validator refused it.
      // A client that sees this refusal asks again once the call is pending, as this does; the sample is
      // left out (its timing would be the stall's).
      if (!(refusal instanceof Error) || !/is not pending \(status: running\)/.test(refusal.message)) throw refusal;
      console.warn(`[bench] approval: ${turnId} gate ${k}: refused as not yet pending; deciding again`);
      await waitPending(g, turnId, k, pollMs);
      await g.decide(turnId, k);
      await started;
      continue;
    }
    const t1 = performance.now();
    const tExec = await started;
    samples.push({ ack: tExec - t1, send: tExec - t0, rt: t1 - t0 });
  }
  await g.finish(turnId);
  env.rec.requests.delete(turnId);
  return samples;
}

function stats(all: Sample[]): ApprovalStats {
  return {
    approvals: all.length,
    ackToToolStartMs: roundSummary(summarize(all.map((s) => s.ack)), 3),
    sendToToolStartMs: roundSummary(summarize(all.map((s) => s.send)), 3),
    updateRoundTripMs: roundSummary(summarize(all.map((s) => s.rt)), 3),
  };
}

export async function runApproval(
  env: BenchEnv,
  opts: { approvals: number; cache: CacheMode; warmGates: number },
): Promise<ApprovalResult> {
  const cacheOpts = opts.cache === 'evicted' ? { maxCachedWorkflows: 0 } : {};
  const { taskQueue, tiller } = env.queue(`approval-${opts.cache}`);
  const worker = await env.worker(taskQueue, cacheOpts);
  const base = await baselineWorker(env, cacheOpts);
  const ours: Gated = {
    start: (turnId, gates) =>
      tiller.startTurn({ agent: GATED_AGENT, input: planInput({ key: turnId, steps: 0, gated: gates }), turnId }),
    isPending: async (turnId, k) => (await tiller.state(turnId)).pendingApprovals.some((p) => p.id === callId(k)),
    decide: (turnId, k) => tiller.decide(turnId, { id: callId(k), approved: true, approver: 'bench' }),
    startKey: (turnId, k) => `${turnId}/${callId(k)}`,
    finish: async (turnId) => {
      const r = await tiller.result(turnId);
      if (r.status !== 'completed') throw new Error(`${turnId} ended ${r.status}`);
    },
  };
  const handle = (id: string) => env.client.workflow.getHandle(id);
  const baseline: Gated = {
    start: (turnId, gates) =>
      env.client.workflow.start('baselineGated', {
        taskQueue: base.taskQueue,
        workflowId: turnId,
        args: [planInput({ key: turnId, steps: 0 }), 0, gates],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      }),
    isPending: async (turnId, k) => (await handle(turnId).query<{ waiting: number }>('state')).waiting === k,
    decide: (turnId, k) => handle(turnId).executeUpdate<boolean, [number]>('decide', { args: [k] }),
    startKey: (turnId, k) => `${turnId}/${k}`,
    finish: (turnId) => handle(turnId).result(),
  };
  const pollMs = opts.cache === 'evicted' ? 20 : 5;
  return worker.runUntil(
    base.worker.runUntil(async () => {
      await gatedTurn(env, ours, opts.warmGates, pollMs); // warm-up
      await gatedTurn(env, baseline, opts.warmGates, pollMs);
      const mine: Sample[] = [];
      const theirs: Sample[] = [];
      while (mine.length < opts.approvals) {
        const n = Math.min(PER_TURN, opts.approvals - mine.length);
        mine.push(...(await gatedTurn(env, ours, n, pollMs)));
        theirs.push(...(await gatedTurn(env, baseline, n, pollMs)));
      }
      return {
        cache: opts.cache,
        maxCachedWorkflows: opts.cache === 'evicted' ? 0 : 'default',
        approvalsPerTurn: PER_TURN,
        ...stats(mine),
        baseline: stats(theirs),
      };
    }),
  );
}
