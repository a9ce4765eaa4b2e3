/**
 * The capacity model: 1,000,000 concurrently paused turns and 1,000 tool steps/s, computed from the
 * measured per-unit figures. Every line names the measured input it scales and the assumption that
 * turns it into a size; change an assumption here and CAPACITY.md follows on the next render.
 */
import type { PausedFigures, UnitCost } from './figures';

export const TARGET = { pausedTurns: 1_000_000, stepsPerSecond: 1_000 };

/** Assumptions, each named where it is used. */
export const ASSUME = {
  /** Cores of one server instance (history, matching, frontend, PostgreSQL) and of a worker process. */
  instanceCores: 4,
  /** Share of an instance's CPU planned for steady load (headroom for bursts, failover, replays). */
  utilisation: 0.6,
  /** A Node worker process drives about one core (its JS thread; the SDK's Rust core runs beside it). */
  workerCores: 1,
  /** Temporal's per-host persistence limits (defaults of the pinned server, common/dynamicconfig/constants.go). */
  historyPersistenceMaxQPS: 9000,
  /** Shards per history host to leave room for growth: hosts can be added 8× without a new database. */
  shardsPerHistoryHostAtTarget: 64,
  /** Temporal Cloud's default namespace limit (https://docs.temporal.io/cloud/limits). */
  cloudDefaultAps: 500,
} as const;

export interface ModelLine {
  what: string;
  value: string;
  /** The measured figure (from CAPACITY.md's tables) and how it is scaled. */
  from: string;
  assumption: string;
}

const gib = (b: number) => `${(b / 2 ** 30).toFixed(1)} GiB`;
const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;
const n0 = (x: number) => Math.round(x).toLocaleString('en-US');
const up = (x: number) => Math.max(1, Math.ceil(x));

export function capacityModel(
  tool: UnitCost,
  paused: PausedFigures | undefined,
  shardIdle: { shards: number; statementsPerSecond: number; serverCpuMsPerSecond: number }[],
): ModelLine[] {
  const lines: ModelLine[] = [];
  const S = TARGET.stepsPerSecond;
  const P = TARGET.pausedTurns;
  const perInstance = ASSUME.instanceCores * ASSUME.utilisation * 1000; // CPU ms per second
  if (paused) {
    const db = paused.dbBytesPerTurn;
    lines.push({
      what: `database for ${n0(P)} paused turns`,
      value: `${gib((db.temporal + db.visibility) * P)} (temporal ${gib(db.temporal * P)}, visibility ${gib(db.visibility * P)})`,
      from: `growth per paused turn ${n0(db.temporal)} + ${n0(db.visibility)} bytes (slope over ${n0(paused.turns)} held) × ${n0(P)}`,
      assumption:
        "linear growth; the visibility figure is index entries above all: each version of a turn's executions_visibility row (its start, each upsert) adds an entry to each index it belongs to, the server's 15 and those of the search attributes it sets (deploy/postgres/visibility.sql makes the other 58 partial), until vacuum reclaims the old versions'",
    });
    lines.push({
      what: `writes to pause them (once)`,
      value: `${n0(paused.unit.rowsWritten * P)} rows, ${gib(paused.unit.walBytes * P)} WAL`,
      from: `${paused.unit.rowsWritten.toFixed(1)} rows and ${n0(paused.unit.walBytes)} WAL bytes per paused turn × ${n0(P)}`,
      assumption: 'spread over however long they take to arrive; nothing is written while they wait',
    });
    const hist = paused.rssBytesPerTurn.history ?? 0;
    lines.push({
      what: 'history service memory while they wait',
      value: `${mib(Math.max(0, hist) * Math.min(P, 128_000))} per history host at most`,
      from: `history RSS slope ${n0(hist)} bytes per paused turn × 128,000`,
      assumption:
        'a history host caches at most history.hostLevelCacheMaxSize (128,000) executions; the rest wait in the database only, read back when decided',
    });
    const worker = Object.entries(paused.rssBytesPerTurn)
      .filter(([k]) => k.startsWith('worker-'))
      .reduce((a, [, v]) => a + v, 0);
    lines.push({
      what: 'worker memory while they wait',
      value: "none beyond each worker's cache budget (TILLER_WORKFLOW_CACHE_MB, 384 MiB → 512 turns)",
      from: `workers' RSS slope ${n0(worker)} bytes per paused turn, all workers together, within the cache`,
      assumption: 'evicted turns hold nothing in a worker; a decision replays the turn on any worker',
    });
  }
  lines.push({
    what: `PostgreSQL at ${n0(S)} tool steps/s`,
    value: `${n0(tool.statements * S)} statements/s, ${n0(tool.rowsWritten * S)} rows written/s, ${mib(tool.walBytes * S)}/s WAL`,
    from: `${tool.statements.toFixed(1)} statements, ${tool.rowsWritten.toFixed(1)} rows, ${n0(tool.walBytes)} WAL bytes per Tiller tool step × ${n0(S)}`,
    assumption:
      'per-step costs stay flat with scale (they did across worker counts here); WAL includes full-page images after checkpoints',
  });
  const pgCores = (tool.cpuMs.postgres * S) / 1000;
  lines.push({
    what: 'PostgreSQL CPU',
    value: `${pgCores.toFixed(1)} cores (${up(pgCores / (ASSUME.instanceCores * ASSUME.utilisation))} × ${ASSUME.instanceCores}-core primaries, or one larger)`,
    from: `${tool.cpuMs.postgres.toFixed(1)} ms PostgreSQL CPU per step × ${n0(S)}`,
    assumption: `${ASSUME.instanceCores}-core instances at ${ASSUME.utilisation * 100} %; one SQL primary cannot be split, so beyond one big primary this is where Cassandra (or Temporal Cloud) comes in`,
  });
  for (const service of ['history', 'matching', 'frontend'] as const) {
    const ms = tool.cpuMs[service] * S;
    lines.push({
      what: `${service} instances`,
      value: `${up(ms / perInstance)} (${(ms / 1000).toFixed(1)} cores)`,
      from: `${tool.cpuMs[service].toFixed(1)} ms ${service} CPU per step × ${n0(S)}`,
      assumption: `${ASSUME.instanceCores}-core instances at ${ASSUME.utilisation * 100} % CPU`,
    });
  }
  const historyHosts = up((tool.cpuMs.history * S) / perInstance);
  lines.push({
    what: 'history persistence QPS per host',
    value: `≤ ${n0((tool.statements * S) / historyHosts)} statements/s per history host (limit ${n0(ASSUME.historyPersistenceMaxQPS)} calls/s)`,
    from: `${tool.statements.toFixed(1)} statements per step × ${n0(S)} ÷ ${historyHosts} history hosts`,
    assumption:
      'every statement counted as a persistence call of history (an upper bound: a call is one transaction of several statements, and matching and frontend make some)',
  });
  const shards = historyHosts * ASSUME.shardsPerHistoryHostAtTarget;
  const pow2 = 2 ** Math.ceil(Math.log2(shards));
  const [lo, hi] = [shardIdle[0], shardIdle.at(-1)];
  const perShard =
    lo && hi && hi.shards !== lo.shards
      ? {
          st: (hi.statementsPerSecond - lo.statementsPerSecond) / (hi.shards - lo.shards),
          cpu: (hi.serverCpuMsPerSecond - lo.serverCpuMsPerSecond) / (hi.shards - lo.shards),
        }
      : undefined;
  lines.push({
    what: 'numHistoryShards',
    value: `${n0(pow2)}${perShard ? ` (idle cost ${(perShard.st * pow2).toFixed(0)} statements/s${perShard.cpu > 0 ? `, ${((perShard.cpu * pow2) / 1000).toFixed(2)} cores` : ', no CPU measurable above noise'})` : ''}`,
    from: `${historyHosts} history hosts × ${ASSUME.shardsPerHistoryHostAtTarget}, rounded up to a power of two${perShard ? `; idle per shard ${perShard.st.toFixed(3)} statements/s and ${perShard.cpu.toFixed(2)} ms CPU/s (idle ${lo!.shards} vs ${hi!.shards} shards)` : ''}`,
    assumption:
      'fixed at database creation; a shard is the unit a history host owns, so enough of them lets hosts be added later',
  });
  const workerCores = (tool.cpuMs.workers * S) / 1000;
  lines.push({
    what: 'Tiller workers',
    value: `${up(workerCores / (ASSUME.workerCores * ASSUME.utilisation))} processes (${workerCores.toFixed(1)} cores)`,
    from: `${tool.cpuMs.workers.toFixed(1)} ms worker CPU per step × ${n0(S)}`,
    assumption: `a worker process uses about ${ASSUME.workerCores} core, planned at ${ASSUME.utilisation * 100} %; a real model's latency adds slots held, not CPU`,
  });
  lines.push({
    what: 'Temporal Cloud actions',
    value: `${n0(tool.actions * S)} actions/s (default namespace limit ${ASSUME.cloudDefaultAps} APS, raised on demand)`,
    from: `${tool.actions.toFixed(2)} actions per Tiller tool step (from its events) × ${n0(S)}`,
    assumption: "Temporal Cloud's action rules; queries sent by clients (an inbox) add one each",
  });
  return lines;
}
