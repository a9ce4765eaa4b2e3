/**
 * A short fault-free phase: the same batch of ledger turns with one worker polling, then with all of
 * them, for turn latency and throughput. Workers beyond the first are stopped (SIGTERM) for the first
 * pass and started again for the second.
 */
import { summarize, type Summary } from '../bench/stats';
import type { Cluster } from '../cluster/types';
import { scenario } from './scenarios';
import { driveTurn, type DriveContext, type TurnRecord } from './turns';

export interface ThroughputPass {
  workers: number;
  turns: number;
  /** Start to result read, per turn: 2 model calls and 1 tool call. */
  turnMs: Summary;
  turnsPerSecond: number;
  records: TurnRecord[];
}

async function pass(ctx: DriveContext, workers: number, turns: number, prefix: string): Promise<ThroughputPass> {
  const t0 = performance.now();
  const released = Promise.resolve();
  const records = await Promise.all(
    Array.from({ length: turns }, (_, i) => driveTurn(ctx, scenario('write', `${prefix}${i}`), released).done),
  );
  const seconds = (performance.now() - t0) / 1000;
  const ok = records.filter((r) => r.result && r.endedAt !== undefined);
  return {
    workers,
    turns,
    turnMs: summarize(ok.map((r) => r.endedAt! - r.startedAt)),
    turnsPerSecond: Math.round((ok.length / seconds) * 10) / 10,
    records,
  };
}

export async function runThroughput(
  ctx: DriveContext,
  cluster: Cluster,
  turns: number,
  runId: string,
  log: (line: string) => void,
): Promise<ThroughputPass[]> {
  const workers = cluster.processes().filter((p) => p.role === 'tiller-worker');
  const spare = workers.slice(1).map((w) => w.name);
  await Promise.all(spare.map((name) => cluster.kill(name, 'SIGTERM')));
  log(`throughput: ${turns} turns on 1 worker`);
  const one = await pass(ctx, 1, turns, `${runId}-one-`);
  await Promise.all(spare.map((name) => cluster.start(name)));
  log(`throughput: ${turns} turns on ${workers.length} workers`);
  const all = await pass(ctx, workers.length, turns, `${runId}-all-`);
  return [one, all];
}
