/**
 * Throughput: tool steps per second with C turns running at once on one worker, wall clock from
 * the first start to the last result (so it includes starting and finishing the turns). Tiller with
 * the tool as an activity, then on the fast path (a read-only tool, run as a local activity), then the
 * bare loop (the Temporal baseline: what the same server and machine allow a loop of this shape).
 */
import { randomUUID } from 'node:crypto';
import type { TillerClient } from '../../../src/client';
import { AGENT, FAST_AGENT, planInput, READ_STEP_TOOL } from '../fixture';
import type { BenchEnv } from '../env';
import { cpuOf } from '../machine';
import { gaps, round, roundSummary, summarize, type Summary } from '../stats';
import { baselineWorker } from './baseline';

export interface ThroughputLevel {
  /** `tiller`: the tool as an activity; `fast`: the fast path; `bare`: the Temporal baseline. Absent in older results: `tiller`. */
  variant?: 'tiller' | 'fast' | 'bare';
  concurrency: number;
  /** Steps each of the C lanes runs, in turns of at most --steps steps. */
  stepsPerLane: number;
  turns: number;
  totalSteps: number;
  wallS: number;
  stepsPerS: number;
  /** Per-step latency (model-request gaps) under this load. */
  stepMs: Summary;
  /** CPU per tool step: the dev server process, and the bench process (worker, client, model server). */
  cpu: { serverMs: number; benchMs: number };
}

/**
 * C lanes at once; each lane runs turns of at most `maxStepsPerTurn` steps one after another until it
 * has done `stepsPerLane` (a single 1,000-step turn would exceed Temporal's history size limit).
 */
/** Runs one turn of `steps` steps under `key` to its end; false when it did not complete. */
type RunTurn = (key: string, steps: number) => Promise<boolean>;

const tillerTurn =
  (tiller: TillerClient, fast: boolean): RunTurn =>
  async (key, steps) => {
    const plan = planInput({ key, steps, ...(fast && { tool: READ_STEP_TOOL }) });
    await tiller.startTurn({ agent: fast ? FAST_AGENT : AGENT, input: plan, turnId: key });
    return (await tiller.result(key)).status === 'completed';
  };

async function level(env: BenchEnv, turn: RunTurn, c: number, stepsPerLane: number, maxStepsPerTurn: number) {
  const keys: string[] = [];
  const started = performance.now();
  let failed = 0;
  await Promise.all(
    Array.from({ length: c }, async () => {
      for (let left = stepsPerLane; left > 0;) {
        const steps = Math.min(left, maxStepsPerTurn);
        left -= steps;
        const key = `tp-${randomUUID()}`;
        keys.push(key);
        if (!(await turn(key, steps))) failed++;
      }
    }),
  );
  const wall = (performance.now() - started) / 1000;
  if (failed) throw new Error(`throughput: ${failed} turns did not complete`);
  const stepTimes = keys.flatMap((k) => gaps(env.rec.requests.get(k) ?? []));
  for (const k of keys) env.rec.requests.delete(k);
  return { wall, stepTimes, turns: keys.length };
}

export async function runThroughput(
  env: BenchEnv,
  opts: { concurrency: number[]; totalSteps: number; maxStepsPerTurn: number },
): Promise<ThroughputLevel[]> {
  const { taskQueue, tiller } = env.queue('throughput');
  const worker = await env.worker(taskQueue);
  const base = await baselineWorker(env);
  const runners: Record<NonNullable<ThroughputLevel['variant']>, RunTurn> = {
    tiller: tillerTurn(tiller, false),
    fast: tillerTurn(tiller, true),
    bare: async (key, steps) => {
      await env.client.workflow.execute('baselineTurn', {
        taskQueue: base.taskQueue,
        workflowId: key,
        args: [planInput({ key, steps }), steps],
      });
      return true;
    },
  };
  return worker.runUntil(
    base.worker.runUntil(async () => {
      for (const turn of Object.values(runners)) await level(env, turn, 10, 5, 5); // warm-up
      const out: ThroughputLevel[] = [];
      for (const variant of ['tiller', 'fast', 'bare'] as const)
        for (const c of opts.concurrency) {
          const steps = Math.max(4, Math.ceil(opts.totalSteps / c));
          const measured = await cpuOf(env.server.process.pid, () =>
            level(env, runners[variant], c, steps, opts.maxStepsPerTurn),
          );
          const { wall, stepTimes, turns } = measured.value;
          out.push({
            variant,
            concurrency: c,
            stepsPerLane: steps,
            turns,
            totalSteps: steps * c,
            wallS: round(wall, 3),
            stepsPerS: round((steps * c) / wall, 1),
            stepMs: roundSummary(summarize(stepTimes), 2),
            cpu: {
              serverMs: round(measured.serverMs / (steps * c), 2),
              benchMs: round(measured.benchMs / (steps * c), 2),
            },
          });
        }
      return out;
    }),
  );
}
