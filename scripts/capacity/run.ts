/**
 * One shard value's pass: a fresh cluster (its own PostgreSQL home, so the checkout's `npm run cluster`
 * database is never touched) with pg_stat_statements loaded and the largest worker count; the idle
 * window; per worker count the throughput of tool steps on Tiller and the bare loop; at the largest
 * count gated steps and session turns on both; then (when asked) paused turns held. Then down.
 */
import fs from 'node:fs';
import path from 'node:path';
import { TillerClient } from '../../src/client';
import { temporalSettings } from '../../src/client/connect';
import { databasePassword, DB_USER } from '../cluster/database';
import { CLUSTER_DIR, clusterUp, readState } from '../cluster/index';
import { postgresHome } from '../cluster/postgres';
import type { Cluster } from '../cluster/types';
import { runPiece, type BatchResult, type DriveContext, type Loop } from './batches';
import { measureIdle } from './measure';
import type { CapacityModel } from './model';
import type { CapacityOptions } from './options';
import { runPaused, type PausedResult } from './paused';
import { runPair, type PairOptions } from './rounds';
import { enableStatements, type Delta } from './probe';

export interface ShardPass {
  shards: number;
  idle: Delta;
  batches: BatchResult[];
  paused?: PausedResult;
  /** The bare loop's waiting workflows, held the same way (before or after Tiller's: `order`). */
  pausedBare?: PausedResult;
  seconds: number;
}

const ROOT = path.resolve(__dirname, '../..');
/** The bare loop's task queue, beside Tiller's on the same workers. */
const BARE_QUEUE = 'capacity-bare';

async function setWorkers(cluster: Cluster, want: number, max: number): Promise<void> {
  for (let i = 1; i <= max; i++) {
    const running = cluster.processes().find((p) => p.name === `worker-${i}`)?.pid !== undefined;
    if (i <= want && !running) await cluster.start(`worker-${i}`);
    if (i > want && running) await cluster.kill(`worker-${i}`, 'SIGTERM');
  }
}

export async function runShardPass(
  opts: CapacityOptions,
  shards: number,
  model: CapacityModel,
  bareBundle: string,
  withPaused: boolean,
  log: (line: string) => void,
): Promise<{ pass: ShardPass; description: string }> {
  const t0 = performance.now();
  // A database of its own, made fresh: numHistoryShards is fixed when the database is created.
  const pgHome = postgresHome(path.join(CLUSTER_DIR, 'capacity'), {});
  fs.rmSync(pgHome, { recursive: true, force: true });
  process.env.TILLER_CLUSTER_POSTGRES_HOME = pgHome;
  const maxWorkers = Math.max(...opts.workers);
  log(`numHistoryShards ${shards}: bringing the cluster up (${maxWorkers} workers, port ${opts.port})`);
  const cluster = await clusterUp({
    port: opts.port,
    workers: maxWorkers,
    gateway: false,
    historyShards: shards,
    postgresSettings: { shared_preload_libraries: 'pg_stat_statements' },
    workerCommand: {
      command: process.execPath,
      args: ['--require', 'tsx/cjs', path.join(ROOT, 'scripts/capacity/worker.ts')],
      readyPattern: /^ready$/m,
    },
    env: {
      OPENAI_BASE_URL: model.url,
      CAPACITY_BARE_BUNDLE: bareBundle,
      CAPACITY_BARE_QUEUE: BARE_QUEUE,
      CAPACITY_RESULT_BYTES: String(opts.resultBytes),
    },
    log: (line) => log(`cluster: ${line}`),
  });
  let tiller: TillerClient | undefined;
  try {
    const state = readState()!;
    const pg = {
      bin: state.postgres.bin,
      port: state.postgres.port,
      user: DB_USER,
      password: databasePassword(CLUSTER_DIR).password,
    };
    await enableStatements(pg);
    tiller = await TillerClient.connect(temporalSettings(cluster.clientEnv('gateway')));
    const ctx: DriveContext = {
      probe: { cluster, pg },
      tiller,
      model,
      bareQueue: BARE_QUEUE,
      workers: maxWorkers,
      log,
    };
    const batches: BatchResult[] = [];
    // Both loops' batches, interleaved in pieces (./rounds.ts).
    const pair = async (o: Omit<PairOptions, 'pieces'>) => {
      const joined = await runPair(ctx, opts.order, { ...o, pieces: opts.pieces }, (p, i) =>
        log(`  piece ${i + 1}: ${p.loop} ${p.kind} ${p.units} in ${p.seconds.toFixed(1)} s`),
      );
      for (const r of joined) {
        log(
          `${shards} shards, ${r.workers} workers: ${r.loop} ${r.kind} ${r.units} in ${r.seconds.toFixed(1)} s (${r.perSecond.toFixed(1)}/s, p50 ${r.stepMs.p50} ms), ${(r.cost.rowsWritten / r.units).toFixed(1)} rows and ${(r.cost.walBytes / r.units / 1024).toFixed(1)} KiB WAL each`,
        );
        batches.push(r);
      }
    };
    // Warm-up (not recorded): JIT, connections, the workers' caches; again after every change of the
    // worker count (new pollers, turns whose sticky worker stopped), so no measured batch pays for it.
    const warmUp = async () => {
      for (const loop of opts.order)
        await runPiece(ctx, {
          loop,
          kind: 'tool',
          lanes: ctx.workers * 2,
          units: opts.stepsPerTurn * ctx.workers * 2,
          perTurn: opts.stepsPerTurn,
          sampleTurns: 0,
        });
    };
    await warmUp();
    const idle = await measureIdle(ctx.probe, opts.idleSeconds);
    log(
      `idle: ${(idle.statements / idle.seconds).toFixed(1)} statements/s, ${(idle.walBytes / idle.seconds / 1024).toFixed(1)} KiB WAL/s`,
    );
    for (const workers of [...opts.workers].sort((a, b) => a - b)) {
      await setWorkers(cluster, workers, maxWorkers);
      ctx.workers = workers;
      await warmUp();
      await pair({ kind: 'tool', lanes: opts.lanes, units: opts.toolSteps, perTurn: opts.stepsPerTurn });
    }
    if (ctx.workers !== maxWorkers) {
      await setWorkers(cluster, maxWorkers, maxWorkers);
      ctx.workers = maxWorkers;
      await warmUp();
    }
    await pair({ kind: 'gated', lanes: Math.min(opts.lanes, opts.gatedSteps / 2), units: opts.gatedSteps, perTurn: 2 });
    // A piece's sessions all run at once: the batch's concurrency is its sessions over its pieces.
    for (const kind of ['session', 'session-child'] as const)
      await pair({
        kind,
        lanes: Math.ceil(opts.sessions / opts.pieces),
        units: opts.sessions * opts.sessionTurns,
        perTurn: opts.sessionTurns,
      });
    // Paused turns held, in the batches' order: each loop's after the other's in the same database.
    const held: Partial<Record<Loop, PausedResult>> = {};
    if (withPaused) for (const loop of opts.order) held[loop] = await runPaused(ctx, opts.paused, opts.lanes, loop);
    const { tiller: paused, bare: pausedBare } = held;
    const pass: ShardPass = {
      shards,
      idle,
      batches,
      ...(paused && { paused }),
      ...(pausedBare && { pausedBare }),
      seconds: (performance.now() - t0) / 1000,
    };
    return { pass, description: cluster.description };
  } finally {
    await tiller?.close().catch(() => undefined);
    await cluster.down();
    fs.rmSync(pgHome, { recursive: true, force: true });
  }
}
