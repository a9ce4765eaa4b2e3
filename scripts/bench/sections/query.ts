/**
 * `state` query latency on a turn with a long history (N tool steps, then paused on an approval):
 * first with the turn in the worker's cache, then with a worker that caches nothing
 * (`maxCachedWorkflows: 0`), so every query replays the whole history.
 */
import { randomUUID } from 'node:crypto';
import { callId, GATED_AGENT, planInput } from '../fixture';
import type { BenchEnv } from '../env';
import { roundSummary, sleep, summarize, type Summary } from '../stats';

export interface QueryResult {
  historySteps: number;
  /** Events in the history while the turn waits (what an evicted query replays). */
  historyEvents: number;
  stateJsonBytes: number;
  cached: Summary;
  evicted: Summary;
}

async function measure(env: BenchEnv, turnId: string, n: number, warm: number): Promise<number[]> {
  const tiller = env.queue('q').tiller;
  const out: number[] = [];
  for (let i = 0; i < warm + n; i++) {
    const t0 = performance.now();
    await tiller.state(turnId);
    if (i >= warm) out.push(performance.now() - t0);
  }
  return out;
}

export async function runQuery(
  env: BenchEnv,
  opts: { steps: number; queries: number; evictedQueries: number },
): Promise<QueryResult> {
  const { taskQueue, tiller } = env.queue('query');
  const turnId = `query-${randomUUID()}`;
  const pendingId = callId(opts.steps);
  const cachedWorker = await env.worker(taskQueue);
  const { cached, stateJsonBytes, historyEvents } = await cachedWorker.runUntil(async () => {
    await tiller.startTurn({
      agent: GATED_AGENT,
      input: planInput({ key: turnId, steps: opts.steps, gated: 1 }),
      turnId,
    });
    for (;;) {
      const s = await tiller.state(turnId).catch(() => undefined);
      if (s?.pendingApprovals.some((p) => p.id === pendingId)) break;
      await sleep(50);
    }
    const state = await tiller.state(turnId);
    const history = await env.client.workflow.getHandle(turnId).fetchHistory();
    return {
      cached: await measure(env, turnId, opts.queries, 20),
      stateJsonBytes: JSON.stringify(state).length,
      historyEvents: history.events?.length ?? 0,
    };
  });
  const evictedWorker = await env.worker(taskQueue, { maxCachedWorkflows: 0 });
  const evicted = await evictedWorker.runUntil(async () => {
    const samples = await measure(env, turnId, opts.evictedQueries, 2);
    await tiller.decide(turnId, { id: pendingId, approved: true });
    await tiller.result(turnId);
    return samples;
  });
  env.rec.requests.delete(turnId);
  return {
    historySteps: opts.steps,
    historyEvents,
    stateJsonBytes,
    cached: roundSummary(summarize(cached), 3),
    evicted: roundSummary(summarize(evicted), 3),
  };
}
