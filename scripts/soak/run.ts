/**
 * The soak's course on a running target: a fault-free throughput phase (1 vs all workers), then C
 * concurrent turns of mixed scenarios while the fault schedule runs — each fault releases a share of
 * the waiting decisions and starts a burst of fresh turns as it begins — then every turn's end, judged.
 */
import type { Cluster } from '../cluster/types';
import { injectFault, SCHEDULE, type FaultRun } from './faults';
import type { SoakModel } from './model';
import type { SoakOptions } from './options';
import { mix, scenario, type Scenario } from './scenarios';
import { runThroughput, type ThroughputPass } from './throughput';
import { driveSequence, driveTurn, type DriveContext, type TurnRecord } from './turns';

export interface SoakRun {
  throughput: ThroughputPass[];
  faults: FaultRun[];
  records: TurnRecord[];
  canaries: TurnRecord[];
  modelCounts: ReturnType<SoakModel['counts']>;
  seconds: number;
}

/** A promise and the function that resolves it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Starts a group's turns (a session's run one after another) released by `release`; returns their ends. */
function launch(ctx: DriveContext, group: Scenario[], release: Promise<void>) {
  if (group.length === 1) return driveTurn(ctx, group[0]!, release);
  return { pending: Promise.resolve(), done: driveSequence(ctx, group, release) };
}

export async function runSoak(
  opts: SoakOptions,
  cluster: Cluster,
  model: SoakModel,
  ctx: DriveContext,
  runId: string,
  log: (line: string) => void,
): Promise<SoakRun> {
  const t0 = performance.now();
  const throughput = await runThroughput(ctx, cluster, opts.throughputTurns, runId, log);

  model.setFaultRates(true);
  const groups = mix(opts.turns, `${runId}-t`);
  // The schedule `rounds` times over: more than one recovery per kind for the percentiles.
  const schedule = Array.from({ length: opts.rounds }, () => SCHEDULE).flat();
  const releases = schedule.map(() => gate());
  // Decisions are dealt to the faults in turn: each fault begins with its share released.
  const started = groups.map((group, i) => launch(ctx, group, releases[i % releases.length]!.promise));
  log(`${opts.turns} turns started; waiting until every gated call is pending`);
  await Promise.all(started.map((s) => s.pending));

  const faults: FaultRun[] = [];
  const bursts: Promise<TurnRecord | TurnRecord[]>[] = [];
  const canaries: TurnRecord[] = [];
  let canaryNo = 0;
  const canary = async () => {
    const record = await driveTurn(ctx, scenario('canary', `${runId}-c${canaryNo++}`), Promise.resolve()).done;
    canaries.push(record);
    if (!record.result) throw new Error(record.error ?? 'no result');
  };
  for (const [i, kind] of schedule.entries()) {
    // While workers stall (their workflow tasks timing out), the burst is `instant` turns: decisions
    // sent the moment each call shows, racing its preview and the timed-out tasks (issue 34).
    const burst =
      kind === 'stall-workers'
        ? Array.from({ length: Math.max(1, opts.burst) }, (_, n) => [scenario('instant', `${runId}-f${i}-i${n}`)])
        : mix(opts.burst, `${runId}-f${i}-`, opts.turns + i * opts.burst);
    const run = await injectFault(
      { cluster, model, outageMs: opts.outageMs, longOutageMs: opts.longOutageMs, canary, log },
      kind,
      () => {
        releases[i]!.open();
        for (const group of burst) bursts.push(launch(ctx, group, Promise.resolve()).done);
      },
    );
    faults.push(run);
  }
  log('fault schedule done; waiting for every turn to end');
  const ends = await Promise.all([...started.map((s) => s.done), ...bursts]);
  model.setFaultRates(false);
  return {
    throughput,
    faults,
    records: ends.flat(),
    canaries,
    modelCounts: model.counts(),
    seconds: Math.round(performance.now() - t0) / 1000,
  };
}
