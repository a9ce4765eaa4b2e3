/**
 * Approval → resume: a turn pauses on a gated tool; the bench sends the `decide` update and takes
 * the time from the update's acknowledgement (client side, `executeUpdate` resolved) to the gated
 * tool's `execute` starting (the tool marks `performance.now()`; same process, same clock). Also
 * from sending the update to the tool's start, and the update's round trip alone.
 *
 * "cached": default worker cache, the turn stays in memory while it waits. "evicted":
 * `maxCachedWorkflows: 0`, so every workflow task — the update's included — replays the history.
 */
import { randomUUID } from 'node:crypto';
import type { TillerClient } from '../../../src/client';
import { callId, GATED_AGENT, planInput } from '../fixture';
import type { BenchEnv } from '../env';
import { roundSummary, sleep, summarize, type Summary } from '../stats';

export type CacheMode = 'cached' | 'evicted';

export interface ApprovalResult {
  cache: CacheMode;
  maxCachedWorkflows: number | 'default';
  approvals: number;
  approvalsPerTurn: number;
  /** Update acknowledged (client) → tool execute started. Negative when the tool started before the ack arrived. */
  ackToToolStartMs: Summary;
  /** Update sent → tool execute started. */
  sendToToolStartMs: Summary;
  /** Update sent → acknowledged. */
  updateRoundTripMs: Summary;
}

const PER_TURN = 20;

async function waitPending(tiller: TillerClient, turnId: string, id: string, intervalMs: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const s = await tiller.state(turnId);
      if (s.pendingApprovals.some((p) => p.id === id)) return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    if (Date.now() > deadline) throw new Error(`${turnId}: ${id} never became pending`);
    await sleep(intervalMs);
  }
}

async function approvalTurn(env: BenchEnv, tiller: TillerClient, count: number, pollMs: number) {
  const turnId = `approval-${randomUUID()}`;
  await tiller.startTurn({ agent: GATED_AGENT, input: planInput({ key: turnId, steps: 0, gated: count }), turnId });
  const samples: { ack: number; send: number; rt: number }[] = [];
  for (let k = 0; k < count; k++) {
    const id = callId(k);
    await waitPending(tiller, turnId, id, pollMs);
    await sleep(20); // let the worker go idle: nothing in flight when the decision arrives
    const started = env.rec.gatedStart(`${turnId}/${id}`);
    const t0 = performance.now();
    await tiller.decide(turnId, { id, approved: true, approver: 'bench' });
    const t1 = performance.now();
    const tExec = await started;
    samples.push({ ack: tExec - t1, send: tExec - t0, rt: t1 - t0 });
  }
  const result = await tiller.result(turnId);
  if (result.status !== 'completed') throw new Error(`${turnId} ended ${result.status}`);
  env.rec.requests.delete(turnId);
  return samples;
}

export async function runApproval(
  env: BenchEnv,
  opts: { approvals: number; cache: CacheMode },
): Promise<ApprovalResult> {
  const { taskQueue, tiller } = env.queue(`approval-${opts.cache}`);
  const worker = await env.worker(taskQueue, opts.cache === 'evicted' ? { maxCachedWorkflows: 0 } : undefined);
  const pollMs = opts.cache === 'evicted' ? 20 : 5;
  return worker.runUntil(async () => {
    await approvalTurn(env, tiller, 3, pollMs); // warm-up
    const all: { ack: number; send: number; rt: number }[] = [];
    while (all.length < opts.approvals) {
      all.push(...(await approvalTurn(env, tiller, Math.min(PER_TURN, opts.approvals - all.length), pollMs)));
    }
    return {
      cache: opts.cache,
      maxCachedWorkflows: opts.cache === 'evicted' ? 0 : 'default',
      approvals: all.length,
      approvalsPerTurn: PER_TURN,
      ackToToolStartMs: roundSummary(summarize(all.map((s) => s.ack)), 3),
      sendToToolStartMs: roundSummary(summarize(all.map((s) => s.send)), 3),
      updateRoundTripMs: roundSummary(summarize(all.map((s) => s.rt)), 3),
    };
  });
}
