/**
 * Query latency on a turn with a long history (N tool steps, then paused on an approval): `state` (the
 * whole turn), `summary` (status, pending approvals, usage, counts) and an `events` page (the newest 20
 * events, as a follower that has the rest reads them) — first with the turn in the worker's cache, then
 * with a worker that caches nothing (`maxCachedWorkflows: 0`), so every query replays the whole
 * history: the turn with its tool as an activity, and the same turn on the fast path (a smaller
 * history). The Temporal baseline (a bare workflow after N steps of two activities, waiting, with a
 * query returning two numbers) is queried the same way, alternating with Tiller's.
 */
import { randomUUID } from 'node:crypto';
import type { TillerClient } from '../../../src/client';
import { callId, GATED_AGENT, GATED_FAST_AGENT, planInput, READ_STEP_TOOL } from '../fixture';
import type { BenchEnv } from '../env';
import { saveHistory } from '../saved-histories';
import { roundSummary, sleep, summarize, type Summary } from '../stats';
import { baselineWorker } from './baseline';

export interface QueryResult {
  historySteps: number;
  /** Events in the history while the turn waits (what an evicted query replays). */
  historyEvents: number;
  stateJsonBytes: number;
  summaryJsonBytes?: number;
  cached: Summary;
  evicted: Summary;
  summary?: { cached: Summary; evicted: Summary };
  /** The newest 20 events (`events` with `afterSeq`), cached. */
  events?: { cached: Summary };
  /** `state` of the same turn on the fast path, evicted: a shorter history to replay. */
  fast?: { historyEvents: number; evicted: Summary };
  baseline: {
    historyEvents: number;
    cached: Summary;
    evicted: Summary;
    /** The bare workflow answering about as many bytes of JSON as `state` (its `blob` query), cached. */
    sized?: { jsonBytes: number; cached: Summary };
  };
}

async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error('query section: the turn never paused');
    await sleep(50);
  }
}

/** Runs the queries in turn, `n` rounds after `warm` unrecorded ones; the times of each, in ms. */
async function alternate(queries: (() => Promise<unknown>)[], n: number, warm: number): Promise<number[][]> {
  const series = queries.map(() => [] as number[]);
  for (let i = 0; i < warm + n; i++) {
    for (const [k, q] of queries.entries()) {
      const t0 = performance.now();
      await q();
      if (i >= warm) series[k]!.push(performance.now() - t0);
    }
  }
  return series;
}

const ms = (xs: number[] | undefined) => roundSummary(summarize(xs ?? []), 3);

export async function runQuery(
  env: BenchEnv,
  opts: { steps: number; queries: number; evictedQueries: number },
): Promise<QueryResult> {
  const { taskQueue, tiller } = env.queue('query');
  const turnId = `query-${randomUUID()}`;
  const fastId = `query-fast-${randomUUID()}`;
  const baseId = `query-baseline-${randomUUID()}`;
  const pendingId = callId(opts.steps);
  const theirs = () => env.client.workflow.getHandle(baseId).query<{ waiting: number }>('state');
  const paused = (t: TillerClient, id: string) => async () =>
    (await t.summary(id)).pendingApprovals.some((p) => p.id === pendingId);

  const cachedWorker = await env.worker(taskQueue);
  const base = await baselineWorker(env);
  const cachedPhase = await cachedWorker.runUntil(
    base.worker.runUntil(async () => {
      await tiller.startTurn({
        agent: GATED_AGENT,
        input: planInput({ key: turnId, steps: opts.steps, gated: 1 }),
        turnId,
      });
      await tiller.startTurn({
        agent: GATED_FAST_AGENT,
        input: planInput({ key: fastId, steps: opts.steps, gated: 1, tool: READ_STEP_TOOL }),
        turnId: fastId,
      });
      await env.client.workflow.start('baselineGated', {
        taskQueue: base.taskQueue,
        workflowId: baseId,
        args: [planInput({ key: baseId, steps: opts.steps }), opts.steps, 1],
      });
      await until(paused(tiller, turnId));
      await until(paused(tiller, fastId));
      await until(async () => (await theirs()).waiting === 0);
      const state = await tiller.state(turnId);
      const summary = await tiller.summary(turnId);
      const tail = { afterSeq: Math.max(0, state.eventCount - 20) };
      const stateJsonBytes = JSON.stringify(state).length;
      const blob = () => env.client.workflow.getHandle(baseId).query<unknown, [number]>('blob', stateJsonBytes);
      const blobJsonBytes = JSON.stringify(await blob()).length;
      const [cached, baseCached, summaryCached, eventsCached, blobCached] = await alternate(
        [() => tiller.state(turnId), theirs, () => tiller.summary(turnId), () => tiller.events(turnId, tail), blob],
        opts.queries,
        20,
      );
      return {
        cached,
        baseCached,
        summaryCached,
        eventsCached,
        blobCached,
        blobJsonBytes,
        stateJsonBytes,
        summaryJsonBytes: JSON.stringify(summary).length,
      };
    }),
  );
  // What an evicted query replays, for scripts/bench/replay-cost.ts.
  const historyEvents = await saveHistory(env, 'query', 'tiller', turnId, opts.steps);
  const fastEvents = await saveHistory(env, 'query', 'fast', fastId, opts.steps);
  const baseEvents = await saveHistory(env, 'query', 'baseline', baseId, opts.steps);

  const evictedWorker = await env.worker(taskQueue, { maxCachedWorkflows: 0 });
  const evictedBase = await baselineWorker(env, { taskQueue: base.taskQueue, maxCachedWorkflows: 0 });
  const [evicted, baseEvicted, fastEvicted, summaryEvicted] = await evictedWorker.runUntil(
    evictedBase.worker.runUntil(async () => {
      const series = await alternate(
        [() => tiller.state(turnId), theirs, () => tiller.state(fastId), () => tiller.summary(turnId)],
        opts.evictedQueries,
        2,
      );
      for (const id of [turnId, fastId]) await tiller.decide(id, { id: pendingId, approved: true });
      await env.client.workflow.getHandle(baseId).executeUpdate('decide', { args: [0] });
      await tiller.result(turnId);
      await tiller.result(fastId);
      await env.client.workflow.getHandle(baseId).result();
      return series;
    }),
  );
  for (const id of [turnId, fastId, baseId]) env.rec.requests.delete(id);
  return {
    historySteps: opts.steps,
    historyEvents,
    stateJsonBytes: cachedPhase.stateJsonBytes,
    summaryJsonBytes: cachedPhase.summaryJsonBytes,
    cached: ms(cachedPhase.cached),
    evicted: ms(evicted),
    summary: { cached: ms(cachedPhase.summaryCached), evicted: ms(summaryEvicted) },
    events: { cached: ms(cachedPhase.eventsCached) },
    fast: { historyEvents: fastEvents, evicted: ms(fastEvicted) },
    baseline: {
      historyEvents: baseEvents,
      cached: ms(cachedPhase.baseCached),
      evicted: ms(baseEvicted),
      sized: { jsonBytes: cachedPhase.blobJsonBytes, cached: ms(cachedPhase.blobCached) },
    },
  };
}
