/**
 * `state` query latency on a turn with a long history (N tool steps, then paused on an approval):
 * first with the turn in the worker's cache, then with a worker that caches nothing
 * (`maxCachedWorkflows: 0`), so every query replays the whole history. The Temporal baseline (a bare
 * workflow after N steps of two activities, waiting, with a query returning two numbers) is queried
 * the same way, alternating with Tiller's.
 */
import { randomUUID } from 'node:crypto';
import type { TillerClient } from '../../../src/client';
import { callId, GATED_AGENT, planInput } from '../fixture';
import type { BenchEnv } from '../env';
import { roundSummary, sleep, summarize, type Summary } from '../stats';
import { baselineWorker } from './baseline';

export interface QueryResult {
  historySteps: number;
  /** Events in the history while the turn waits (what an evicted query replays). */
  historyEvents: number;
  stateJsonBytes: number;
  cached: Summary;
  evicted: Summary;
  baseline: { historyEvents: number; cached: Summary; evicted: Summary };
}

async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error('query section: the turn never paused');
    await sleep(50);
  }
}

/** Alternates Tiller's and the baseline's query; returns both series (after `warm` unrecorded rounds). */
async function alternate(a: () => Promise<unknown>, b: () => Promise<unknown>, n: number, warm: number) {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < warm + n; i++) {
    let t0 = performance.now();
    await a();
    if (i >= warm) xs.push(performance.now() - t0);
    t0 = performance.now();
    await b();
    if (i >= warm) ys.push(performance.now() - t0);
  }
  return [xs, ys] as const;
}

const events = async (env: BenchEnv, id: string) =>
  (await env.client.workflow.getHandle(id).fetchHistory()).events?.length ?? 0;

export async function runQuery(
  env: BenchEnv,
  opts: { steps: number; queries: number; evictedQueries: number },
): Promise<QueryResult> {
  const { taskQueue, tiller } = env.queue('query');
  const turnId = `query-${randomUUID()}`;
  const baseId = `query-baseline-${randomUUID()}`;
  const pendingId = callId(opts.steps);
  const ours = (t: TillerClient) => () => t.state(turnId);
  const theirs = () => env.client.workflow.getHandle(baseId).query<{ waiting: number }>('state');

  const cachedWorker = await env.worker(taskQueue);
  const base = await baselineWorker(env);
  const cachedPhase = await cachedWorker.runUntil(
    base.worker.runUntil(async () => {
      await tiller.startTurn({
        agent: GATED_AGENT,
        input: planInput({ key: turnId, steps: opts.steps, gated: 1 }),
        turnId,
      });
      await env.client.workflow.start('baselineGated', {
        taskQueue: base.taskQueue,
        workflowId: baseId,
        args: [planInput({ key: baseId, steps: opts.steps }), opts.steps, 1],
      });
      await until(async () => (await tiller.state(turnId)).pendingApprovals.some((p) => p.id === pendingId));
      await until(async () => (await theirs()).waiting === 0);
      const state = await tiller.state(turnId);
      const [cached, baseCached] = await alternate(ours(tiller), theirs, opts.queries, 20);
      return { cached, baseCached, stateJsonBytes: JSON.stringify(state).length };
    }),
  );
  const historyEvents = await events(env, turnId);
  const baseEvents = await events(env, baseId);

  const evictedWorker = await env.worker(taskQueue, { maxCachedWorkflows: 0 });
  const evictedBase = await baselineWorker(env, { taskQueue: base.taskQueue, maxCachedWorkflows: 0 });
  const [evicted, baseEvicted] = await evictedWorker.runUntil(
    evictedBase.worker.runUntil(async () => {
      const series = await alternate(ours(tiller), theirs, opts.evictedQueries, 2);
      await tiller.decide(turnId, { id: pendingId, approved: true });
      await env.client.workflow.getHandle(baseId).executeUpdate('decide', { args: [0] });
      await tiller.result(turnId);
      await env.client.workflow.getHandle(baseId).result();
      return series;
    }),
  );
  env.rec.requests.delete(turnId);
  env.rec.requests.delete(baseId);
  return {
    historySteps: opts.steps,
    historyEvents,
    stateJsonBytes: cachedPhase.stateJsonBytes,
    cached: roundSummary(summarize(cachedPhase.cached), 3),
    evicted: roundSummary(summarize(evicted), 3),
    baseline: {
      historyEvents: baseEvents,
      cached: roundSummary(summarize(cachedPhase.baseCached), 3),
      evicted: roundSummary(summarize(baseEvicted), 3),
    },
  };
}
