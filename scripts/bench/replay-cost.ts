/**
 * What an evicted query costs the worker, without the server: replays the histories the query section
 * saved (test-artifacts/bench/query-histories/<storage>/: Tiller's waiting 200-step turn, the same turn
 * on the fast path, and the bare baseline workflow) in this process, each several times on one replay
 * worker, and prints the process CPU and wall time per replay. The workflow bundles are built from the
 * current code, so a change to the workflows is measured by running this before and after it.
 * `--set durable` replays the durable section's last turns instead: plain Tiller (`tiller`) and Tiller with
 * guardrails, a context window and a handoff that never act (`features`).
 *
 *   npx tsx scripts/bench/replay-cost.ts [--set query|durable] [--storage memory] [--runs 6] [--only tiller,fast]
 *   npx tsx scripts/bench/replay-cost.ts --promises   # and the promises workflow code creates, by where
 *   node --cpu-prof --cpu-prof-dir=DIR --import tsx scripts/bench/replay-cost.ts   # where the time goes
 *
 * Why promises: the SDK captures a stack trace (source-mapped) for every promise created in the
 * workflow sandbox, for its stack-trace query; per replay that is paid once per promise.
 */
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { buildBundle, quietRuntime } from './env';
import { historiesDir } from './saved-histories';
import { baselineBundle } from './sections/baseline';
import { summarize } from './stats';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

/** Promises created in a workflow sandbox (their constructor is the sandbox's), by the top three bundle frames. */
class PromiseCount {
  total = 0;
  readonly byPlace = new Map<string, number>();

  constructor() {
    v8.promiseHooks.onInit((p: Promise<unknown>) => {
      if (p.constructor === Promise) return; // this process's own
      this.total++;
      const place = (new Error().stack ?? '')
        .split('\n')
        .filter((l) => l.includes('workflow-bundle'))
        .slice(0, 3)
        .map((l) => l.trim().replace(/\(.*workflow-bundle[^:]*:/, '(:'))
        .join(' < ');
      this.byPlace.set(place, (this.byPlace.get(place) ?? 0) + 1);
    });
  }

  report(replays: number, steps: number): string {
    const top = [...this.byPlace].sort((a, b) => b[1] - a[1]).slice(0, 25);
    const lines = top.map(
      ([place, n]) => `  ${(n / replays).toFixed(0).padStart(6)}  ${place || '(no workflow frame)'}`,
    );
    const perReplay = this.total / replays;
    this.total = 0;
    this.byPlace.clear();
    return `  promises per replay ${perReplay.toFixed(0)} (${(perReplay / steps).toFixed(1)} per step):\n${lines.join('\n')}\n`;
  }
}

async function replayCost(
  name: string,
  code: string,
  file: string,
  runs: number,
  count: PromiseCount | undefined,
  savedSteps: number | undefined,
): Promise<void> {
  const history = historyFromJSON(JSON.parse(fs.readFileSync(file, 'utf8')));
  const workflowId = `replay-${name}`;
  const histories = Array.from({ length: runs + 1 }, () => ({ workflowId, history }));
  const cpu: number[] = [];
  const wall: number[] = [];
  let c0 = process.cpuUsage();
  let t0 = performance.now();
  let k = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle: { code } }, histories)) {
    if (result.error) throw result.error;
    const c = process.cpuUsage(c0);
    if (k++ > 0) {
      cpu.push((c.user + c.system) / 1000);
      wall.push(performance.now() - t0);
    }
    c0 = process.cpuUsage();
    t0 = performance.now();
  }
  const events = history.events?.length ?? 0;
  const p50 = (xs: number[]) => summarize(xs).p50.toFixed(0);
  process.stdout.write(
    `${name.padEnd(9)} ${String(events).padStart(5)} events  CPU p50 ${p50(cpu).padStart(5)} ms  wall p50 ${p50(wall).padStart(5)} ms  (${runs} replays after one warm-up)\n`,
  );
  // Histories saved before their steps were: about 12 events a tool step as an activity, 7 on the fast path.
  const steps = savedSteps ?? Math.round(events / (name === 'fast' ? 7 : 12));
  if (count) process.stdout.write(count.report(runs + 1, steps));
}

async function main(): Promise<void> {
  quietRuntime();
  const set = arg('--set', 'query');
  if (set !== 'query' && set !== 'durable') throw new Error(`--set is query or durable, not ${set}`);
  const dir = historiesDir(set, arg('--storage', 'memory'));
  const runs = Number(arg('--runs', '6'));
  const only = arg('--only', '').split(',').filter(Boolean);
  if (!fs.existsSync(dir)) throw new Error(`${dir} is missing: run npm run bench -- --only ${set} first`);
  const stepsFile = path.join(dir, 'steps.json');
  const steps = fs.existsSync(stepsFile)
    ? (JSON.parse(fs.readFileSync(stepsFile, 'utf8')) as Record<string, number>)
    : {};
  const tiller = (await buildBundle()).code;
  const { code: baseline } = await baselineBundle();
  const count = process.argv.includes('--promises') ? new PromiseCount() : undefined;
  const loops: [string, string][] =
    set === 'durable'
      ? [
          ['tiller', tiller],
          ['features', tiller],
        ]
      : [
          ['tiller', tiller],
          ['fast', tiller],
          ['baseline', baseline],
        ];
  for (const [name, code] of loops) {
    if (only.length && !only.includes(name)) continue;
    const file = path.join(dir, `${name}.json`);
    if (!fs.existsSync(file)) throw new Error(`${file} is missing: run npm run bench -- --only ${set} first`);
    await replayCost(name, code, file, runs, count, steps[name]);
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
