/**
 * Durable per-step latency: turns of N instant tool steps on a real worker and dev server. A step's
 * time is taken on the model server's side — between two consecutive model requests of the turn —
 * so it is wall clock, outside the workflow, and includes everything Temporal adds: the workflow
 * task that takes the model's answer, the tool activity, the workflow task that takes its result,
 * and the next model activity's dispatch. Three loops alternate on the same server: Tiller with the
 * tool as an activity, the Temporal baseline, and Tiller on the fast path (a read-only tool: a local
 * activity, one workflow task per step); a fourth, Tiller with guardrails, a context window and a handoff
 * configured but never acting, shows what they cost a step (the Tiller loop is the figure without them).
 */
import { randomUUID } from 'node:crypto';
import type { TillerClient } from '../../../src/client';
import { AGENT, FAST_AGENT, FEATURES_AGENT, planInput, STEP_TOOL, stepToolOf } from '../fixture';
import type { BenchEnv } from '../env';
import { cpuOf } from '../machine';
import { phasesOf, type Phases } from '../phases';
import { saveHistory } from '../saved-histories';
import { baselineWorker } from './baseline';
import { gaps, linearFit, round, roundSummary, summarize, type Summary } from '../stats';

export interface DurableResult {
  stepsPerTurn: number;
  turns: number;
  stepMs: Summary;
  /** Client-side: start → result of the turn, divided by its steps (includes start and final answer). */
  clientMsPerStep: number;
  /** Least-squares slope of step time over the step index, ms per step, averaged over the turns. */
  slopeMsPerStep: number;
  /** slope × (steps − 1): how much slower the last step is than the first, by the fit. */
  fittedGrowthMs: number;
  /** p50 of the first and the last 10 % of steps, over all turns. */
  firstTenthP50: number;
  lastTenthP50: number;
  /**
   * The Temporal baseline (two trivial activities per step, one of them the same model call; no Tiller
   * state, events or growing conversation), its turns alternating with ours on the same server.
   */
  baseline: { turns: number; stepMs: Summary; clientMsPerStep: number; slopeMsPerStep: number; cpu: CpuPerStep };
  /** The same turns on the fast path: a read-only tool (`defineTool({ readOnly: true })`), a local activity. */
  fast?: SideLoop;
  /**
   * The same turns with an input and an output guardrail that pass, a context window never reached and a
   * handoff never taken (FEATURES_AGENT): what they cost a step when configured. Absent in runs before them.
   */
  features?: SideLoop;
  /** CPU per tool step of the dev server process and of the bench process (worker, client, model server). */
  cpu: CpuPerStep;
  /** Server-side phases of the last measured turn of each loop (see phases.ts). */
  phases: { tiller: Phases; baseline: Phases; fast?: Phases };
}

/** A loop that alternates with Tiller's on the same server. */
export interface SideLoop {
  turns: number;
  stepMs: Summary;
  clientMsPerStep: number;
  slopeMsPerStep: number;
  cpu: CpuPerStep;
}

export interface CpuPerStep {
  serverMs: number;
  benchMs: number;
}

export async function runTurnOfSteps(env: BenchEnv, tiller: TillerClient, steps: number, agent = AGENT) {
  const key = `durable-${randomUUID()}`;
  const started = performance.now();
  const tool = stepToolOf(agent);
  const input = planInput({ key, steps, ...(tool !== STEP_TOOL && { tool }) });
  const handle = await tiller.startTurn({ agent, input, turnId: key });
  const result = await tiller.result(handle.workflowId);
  const wall = performance.now() - started;
  if (result.status !== 'completed') throw new Error(`turn ${key} ended ${result.status}: ${result.error ?? ''}`);
  const stepTimes = gaps(env.rec.requests.get(key) ?? []);
  env.rec.requests.delete(key);
  if (stepTimes.length !== steps) throw new Error(`turn ${key}: expected ${steps} step times, got ${stepTimes.length}`);
  return { key, wall, stepTimes };
}

export async function runDurable(
  env: BenchEnv,
  opts: { steps: number; turns: number; baselineTurns: number; warmSteps: number },
): Promise<DurableResult> {
  const { taskQueue, tiller } = env.queue('durable');
  const worker = await env.worker(taskQueue);
  const baseline = await baselineWorker(env);
  return worker.runUntil(
    baseline.worker.runUntil(async () => {
      await runTurnOfSteps(env, tiller, opts.warmSteps); // warm-up
      await baseline.turn(opts.warmSteps);
      await runTurnOfSteps(env, tiller, opts.warmSteps, FAST_AGENT);
      await runTurnOfSteps(env, tiller, opts.warmSteps, FEATURES_AGENT);
      const all: number[] = [];
      const slopes: number[] = [];
      const first: number[] = [];
      const last: number[] = [];
      let wall = 0;
      let lastOurs = '';
      const cpu = { serverMs: 0, benchMs: 0 };
      const pid = env.server.process.pid;
      const add = (acc: CpuPerStep, c: CpuPerStep) => {
        acc.serverMs += c.serverMs;
        acc.benchMs += c.benchMs;
      };
      /** The baseline's and the fast path's turns, each alternating with ours. */
      const loop = () => ({
        times: [] as number[],
        slopes: [] as number[],
        wall: 0,
        last: '',
        cpu: { serverMs: 0, benchMs: 0 },
      });
      const base = loop();
      const fast = loop();
      const featured = loop();
      const record = (
        acc: ReturnType<typeof loop>,
        m: CpuPerStep & { value: { key: string; wall: number; stepTimes: number[] } },
      ) => {
        add(acc.cpu, m);
        acc.last = m.value.key;
        acc.wall += m.value.wall;
        acc.times.push(...m.value.stepTimes);
        acc.slopes.push(linearFit(m.value.stepTimes).slope);
      };
      const tenth = Math.max(1, Math.floor(opts.steps / 10));
      const sideTurns = Math.min(opts.baselineTurns, opts.turns);
      for (let t = 0; t < opts.turns; t++) {
        const measured = await cpuOf(pid, () => runTurnOfSteps(env, tiller, opts.steps));
        const run = measured.value;
        lastOurs = run.key;
        add(cpu, measured);
        wall += run.wall;
        all.push(...run.stepTimes);
        slopes.push(linearFit(run.stepTimes).slope);
        first.push(...run.stepTimes.slice(0, tenth));
        last.push(...run.stepTimes.slice(-tenth));
        if (t >= sideTurns) continue;
        record(base, await cpuOf(pid, () => baseline.turn(opts.steps)));
        record(fast, await cpuOf(pid, () => runTurnOfSteps(env, tiller, opts.steps, FAST_AGENT)));
        record(featured, await cpuOf(pid, () => runTurnOfSteps(env, tiller, opts.steps, FEATURES_AGENT)));
      }
      const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
      const slope = mean(slopes);
      const phasesFor = async (id: string) =>
        phasesOf(await env.client.workflow.getHandle(id).fetchHistory(), opts.steps);
      const perStep = (c: CpuPerStep, k: number) => ({
        serverMs: round(c.serverMs / k, 3),
        benchMs: round(c.benchMs / k, 3),
      });
      const side = (acc: ReturnType<typeof loop>) => ({
        turns: sideTurns,
        stepMs: roundSummary(summarize(acc.times), 3),
        clientMsPerStep: round(acc.wall / (opts.steps * sideTurns), 3),
        slopeMsPerStep: round(mean(acc.slopes), 5),
        cpu: perStep(acc.cpu, opts.steps * sideTurns),
      });
      // The last turn of each Tiller loop, for scripts/bench/replay-cost.ts --set durable.
      await saveHistory(env, 'durable', 'tiller', lastOurs, opts.steps);
      if (featured.last) await saveHistory(env, 'durable', 'features', featured.last, opts.steps);
      return {
        stepsPerTurn: opts.steps,
        turns: opts.turns,
        stepMs: roundSummary(summarize(all), 3),
        clientMsPerStep: round(wall / (opts.steps * opts.turns), 3),
        slopeMsPerStep: round(slope, 5),
        fittedGrowthMs: round(slope * (opts.steps - 1), 3),
        firstTenthP50: round(summarize(first).p50, 3),
        lastTenthP50: round(summarize(last).p50, 3),
        baseline: side(base),
        fast: side(fast),
        features: side(featured),
        cpu: perStep(cpu, opts.steps * opts.turns),
        phases: {
          tiller: await phasesFor(lastOurs),
          baseline: await phasesFor(base.last),
          fast: await phasesFor(fast.last),
        },
      };
    }),
  );
}
