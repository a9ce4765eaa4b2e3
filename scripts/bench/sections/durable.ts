/**
 * Durable per-step latency: turns of N instant tool steps on a real worker and dev server. A step's
 * time is taken on the model server's side — between two consecutive model requests of the turn —
 * so it is wall clock, outside the workflow, and includes everything Temporal adds: the workflow
 * task that takes the model's answer, the tool activity, the workflow task that takes its result,
 * and the next model activity's dispatch.
 */
import { randomUUID } from 'node:crypto';
import type { TillerClient } from '../../../src/client';
import { AGENT, LOCAL_AGENT, LOCAL_STEP_TOOL, planInput } from '../fixture';
import type { BenchEnv } from '../env';
import { cpuOf } from '../machine';
import { phasesOf, type Phases } from '../phases';
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
  /** The same turns with the tool as a local activity (`defineTool({ local: true })`). */
  local?: { turns: number; stepMs: Summary; slopeMsPerStep: number };
  /** CPU per tool step of the dev server process and of the bench process (worker, client, model server). */
  cpu: CpuPerStep;
  /** Server-side phases of the last measured turn, ours and the baseline's (see phases.ts). */
  phases: { tiller: Phases; baseline: Phases };
}

export interface CpuPerStep {
  serverMs: number;
  benchMs: number;
}

export async function runTurnOfSteps(env: BenchEnv, tiller: TillerClient, steps: number, agent = AGENT) {
  const key = `durable-${randomUUID()}`;
  const started = performance.now();
  const input = planInput({ key, steps, ...(agent === LOCAL_AGENT && { tool: LOCAL_STEP_TOOL }) });
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
      const all: number[] = [];
      const slopes: number[] = [];
      const first: number[] = [];
      const last: number[] = [];
      const base: number[] = [];
      const baseSlopes: number[] = [];
      let wall = 0;
      let baseWall = 0;
      let lastOurs = '';
      let lastBase = '';
      const cpu = { serverMs: 0, benchMs: 0 };
      const baseCpu = { serverMs: 0, benchMs: 0 };
      const pid = env.server.process.pid;
      const add = (acc: CpuPerStep, c: CpuPerStep) => {
        acc.serverMs += c.serverMs;
        acc.benchMs += c.benchMs;
      };
      const tenth = Math.max(1, Math.floor(opts.steps / 10));
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
        if (t >= opts.baselineTurns) continue;
        const bm = await cpuOf(pid, () => baseline.turn(opts.steps));
        const b = bm.value;
        lastBase = b.key;
        add(baseCpu, bm);
        baseWall += b.wall;
        base.push(...b.stepTimes);
        baseSlopes.push(linearFit(b.stepTimes).slope);
      }
      // Tools as local activities: the same turns, fewer of them.
      await runTurnOfSteps(env, tiller, opts.warmSteps, LOCAL_AGENT);
      const localTimes: number[] = [];
      const localSlopes: number[] = [];
      const localTurns = Math.min(opts.baselineTurns, opts.turns);
      for (let t = 0; t < localTurns; t++) {
        const run = await runTurnOfSteps(env, tiller, opts.steps, LOCAL_AGENT);
        localTimes.push(...run.stepTimes);
        localSlopes.push(linearFit(run.stepTimes).slope);
      }
      const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
      const slope = mean(slopes);
      const phasesFor = async (id: string) =>
        phasesOf(await env.client.workflow.getHandle(id).fetchHistory(), opts.steps);
      const n = opts.steps * opts.turns;
      const nb = opts.steps * Math.min(opts.baselineTurns, opts.turns);
      const perStep = (c: CpuPerStep, k = n) => ({
        serverMs: round(c.serverMs / k, 3),
        benchMs: round(c.benchMs / k, 3),
      });
      return {
        stepsPerTurn: opts.steps,
        turns: opts.turns,
        stepMs: roundSummary(summarize(all), 3),
        clientMsPerStep: round(wall / (opts.steps * opts.turns), 3),
        slopeMsPerStep: round(slope, 5),
        fittedGrowthMs: round(slope * (opts.steps - 1), 3),
        firstTenthP50: round(summarize(first).p50, 3),
        lastTenthP50: round(summarize(last).p50, 3),
        baseline: {
          stepMs: roundSummary(summarize(base), 3),
          turns: Math.min(opts.baselineTurns, opts.turns),
          clientMsPerStep: round(baseWall / (opts.steps * Math.min(opts.baselineTurns, opts.turns)), 3),
          slopeMsPerStep: round(mean(baseSlopes), 5),
          cpu: perStep(baseCpu, nb),
        },
        cpu: perStep(cpu),
        local: {
          turns: localTurns,
          stepMs: roundSummary(summarize(localTimes), 3),
          slopeMsPerStep: round(mean(localSlopes), 5),
        },
        phases: { tiller: await phasesFor(lastOurs), baseline: await phasesFor(lastBase) },
      };
    }),
  );
}
