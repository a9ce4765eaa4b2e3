/**
 * Paused turns at scale: K turns that each pause on an approval, served by a worker in its own
 * process (so its RSS is the worker's alone), once with the default workflow cache and once with a
 * small one. Then the waiting turns are listed through visibility (`TillerStatus`), all approved,
 * and every one is checked to complete with its gated tool run.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { TillerClient } from '../../../src/client';
import { callId, GATED_AGENT, GATED_TOOL, planInput } from '../fixture';
import type { BenchEnv } from '../env';
import type { MemReport, WorkerConfig } from '../paused-worker';
import { pool, round, sleep } from '../stats';

export interface PausedPass {
  cache: 'default' | 'small';
  maxCachedWorkflows: number;
  turns: number;
  startAllS: number;
  /** First start → visibility counts all K as awaiting_approval. */
  allPausedS: number;
  rssIdleMiB: number;
  rssPausedMiB: number;
  heapPausedMiB: number;
  cachedWhilePaused: number;
  /** `TillerClient.pending()` (visibility list on TillerStatus) over all K, and a `count` on the same filter. */
  listMs: number;
  listed: number;
  countMs: number;
  approveAllS: number;
  /** First approval sent → every result in. */
  completeAllS: number;
  completed: number;
  notCompleted: number;
  rssAfterMiB: number;
  /** The worker's highest RSS over the pass (sampled every 100 ms): pausing, approving and completing (absent in results before it was measured). */
  rssPeakMiB?: number;
}

const MiB = 2 ** 20;

class WorkerProcess {
  private constructor(
    private readonly child: ChildProcess,
    private readonly exited: Promise<number | null>,
  ) {}

  static async start(cfg: WorkerConfig): Promise<WorkerProcess> {
    const child = fork(path.resolve(__dirname, '../paused-worker.ts'), [], {
      execArgv: [...process.execArgv, '--expose-gc'],
      env: { ...process.env, BENCH_WORKER: JSON.stringify(cfg) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      void exited.then((code) => reject(new Error(`bench worker process exited with ${code} before it was ready`)));
    });
    return new WorkerProcess(child, exited);
  }

  mem(): Promise<MemReport> {
    return new Promise((resolve) => {
      const onMessage = (msg: { type: string; report: MemReport }) => {
        if (msg.type !== 'mem') return;
        this.child.off('message', onMessage);
        resolve(msg.report);
      };
      this.child.on('message', onMessage);
      this.child.send({ type: 'mem' });
    });
  }

  async stop(): Promise<void> {
    this.child.send({ type: 'stop' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/**
 * Waits until `want` turns match `query`. It gives up only when the count stops growing for `stallMs`:
 * how long K turns take to pause depends on the machine and on what else runs on it (10,000 turns
 * took longer than a fixed 120 s + 100 ms per turn on a shared 2-core machine, while still progressing).
 */
async function waitCount(env: BenchEnv, query: string, want: number, stallMs: number): Promise<void> {
  let best = -1;
  let progressAt = Date.now();
  for (;;) {
    const { count } = await env.client.workflow.count(query);
    if (count >= want) return;
    if (count > best) {
      best = count;
      progressAt = Date.now();
    } else if (Date.now() - progressAt > stallMs)
      throw new Error(`only ${count} of ${want} turns reached "${query}"; none more in ${stallMs / 1000} s`);
    await sleep(250);
  }
}

async function pass(env: BenchEnv, tiller: TillerClient, taskQueue: string, k: number, cache: number | undefined) {
  const proc = await WorkerProcess.start({
    address: env.server.address,
    namespace: env.server.namespace,
    taskQueue,
    modelUrl: env.model.url,
    bundlePath: env.bundle.codePath,
    resultBytes: env.resultBytes,
    ...(cache !== undefined && { maxCachedWorkflows: cache }),
  });
  try {
    const idle = await proc.mem();
    const ids = Array.from({ length: k }, (_, i) => `paused-${i}-${randomUUID().slice(0, 8)}`);
    const t0 = performance.now();
    await pool(ids, 50, (turnId) =>
      tiller.startTurn({ agent: GATED_AGENT, input: planInput({ key: turnId, steps: 0, gated: 1 }), turnId }),
    );
    const startAll = performance.now() - t0;
    const waiting = `TaskQueue = '${taskQueue}' AND TillerStatus = 'awaiting_approval'`;
    await waitCount(env, waiting, k, 120_000);
    const allPaused = performance.now() - t0;
    await sleep(1_000);
    const paused = await proc.mem();

    const l0 = performance.now();
    const listed = await tiller.pending({ limit: k + 1 });
    const listMs = performance.now() - l0;
    const c0 = performance.now();
    await env.client.workflow.count(waiting);
    const countMs = performance.now() - c0;

    const a0 = performance.now();
    await pool(ids, 50, (turnId) => tiller.decide(turnId, { id: callId(0), approved: true, approver: 'bench' }));
    const approveAll = performance.now() - a0;
    const results = await pool(ids, 100, (turnId) => tiller.result(turnId));
    const completeAll = performance.now() - a0;
    const completed = results.filter(
      (r) => r.status === 'completed' && r.toolCalls.some((c) => c.name === GATED_TOOL && c.status === 'succeeded'),
    ).length;
    for (const id of ids) {
      env.rec.requests.delete(id);
      env.rec.gatedStarts.delete(`${id}/${callId(0)}`);
    }
    const after = await proc.mem();
    return {
      maxCachedWorkflows: paused.maxCachedWorkflows,
      turns: k,
      startAllS: round(startAll / 1000, 2),
      allPausedS: round(allPaused / 1000, 2),
      rssIdleMiB: round(idle.rss / MiB, 1),
      rssPausedMiB: round(paused.rss / MiB, 1),
      heapPausedMiB: round(paused.heapUsed / MiB, 1),
      cachedWhilePaused: paused.cachedWorkflows,
      listMs: round(listMs, 1),
      listed: listed.length,
      countMs: round(countMs, 1),
      approveAllS: round(approveAll / 1000, 2),
      completeAllS: round(completeAll / 1000, 2),
      completed,
      notCompleted: k - completed,
      rssAfterMiB: round(after.rss / MiB, 1),
      rssPeakMiB: round(after.rssPeak / MiB, 1),
    };
  } finally {
    await proc.stop();
  }
}

export async function runPaused(
  env: BenchEnv,
  opts: { turns: number; smallCache: number; caches: ('default' | 'small')[] },
): Promise<PausedPass[]> {
  const out: PausedPass[] = [];
  for (const cache of opts.caches) {
    const { taskQueue, tiller } = env.queue(`paused-${cache}`);
    const r = await pass(env, tiller, taskQueue, opts.turns, cache === 'small' ? opts.smallCache : undefined);
    out.push({ cache, ...r });
  }
  return out;
}
