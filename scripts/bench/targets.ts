/** The issue's targets, checked against what this run measured. A miss is reported, never hidden. */
import type { BenchResults } from './results';

export type Status = 'met' | 'missed' | 'not measured';

export interface TargetRow {
  target: string;
  measured: string;
  status: Status;
  note?: string;
}

const ms = (x: number) => `${x.toFixed(2)} ms`;
const check = (ok: boolean): Status => (ok ? 'met' : 'missed');

export function evaluateTargets(r: BenchResults): TargetRow[] {
  const rows: TargetRow[] = [];
  const floor = r.floor?.result;
  const notMeasured = (target: string, note: string) =>
    rows.push({ target, measured: '—', status: 'not measured', note });

  for (const pass of r.passes) {
    const tag = `(${pass.storage})`;
    const durable = pass.durable?.result;
    if (durable && floor) {
      const o50 = durable.stepMs.p50 - floor.stepMs.p50;
      const o95 = durable.stepMs.p95 - floor.stepMs.p95;
      rows.push({
        target: `durable overhead per tool step ≤ 15 ms p50 ${tag}`,
        measured: `${ms(o50)} (${ms(durable.stepMs.p50)} − floor ${ms(floor.stepMs.p50)}; Temporal baseline alone ${ms(durable.baseline.stepMs.p50 - floor.stepMs.p50)} over the floor)`,
        status: check(o50 <= 15),
      });
      rows.push({
        target: `durable overhead per tool step ≤ 40 ms p95 ${tag}`,
        measured: `${ms(o95)} (${ms(durable.stepMs.p95)} − floor ${ms(floor.stepMs.p95)}; Temporal baseline alone ${ms(durable.baseline.stepMs.p95 - floor.stepMs.p95)})`,
        status: check(o95 <= 40),
      });
    } else if (pass.durable || r.floor) {
      notMeasured(`durable overhead per tool step ${tag}`, 'needs both the floor and the durable section');
    }
    if (durable) {
      // The issue asks for a flat slope without a number; this run calls it flat when the fitted growth
      // over the whole turn stays under 20 % of the median step.
      const growthShare = durable.fittedGrowthMs / durable.stepMs.p50;
      rows.push({
        target: `step time flat over a ${durable.stepsPerTurn}-step turn ${tag}`,
        measured: `slope ${durable.slopeMsPerStep.toFixed(4)} ms/step → ${durable.fittedGrowthMs >= 0 ? '+' : ''}${ms(durable.fittedGrowthMs)} over the turn (${(growthShare * 100).toFixed(0)} % of p50)`,
        status: check(growthShare <= 0.2),
        note: 'criterion of this bench: fitted growth ≤ 20 % of the p50 step',
      });
    }
    const tp = pass.throughput?.result?.find((l) => l.concurrency === 50);
    if (tp) {
      rows.push({
        target: `≥ 150 tool steps/s with 50 concurrent turns ${tag}`,
        measured: `${tp.stepsPerS.toFixed(1)} steps/s`,
        status: check(tp.stepsPerS >= 150),
      });
    }
    const cached = pass.approval?.result?.find((a) => a.cache === 'cached');
    if (cached) {
      rows.push({
        target: `approval → resume ≤ 20 ms p50, cached ${tag}`,
        measured: `${ms(cached.ackToToolStartMs.p50)} ack → tool start (send → tool start ${ms(cached.sendToToolStartMs.p50)}; Temporal baseline ${ms(cached.baseline.ackToToolStartMs.p50)} / ${ms(cached.baseline.sendToToolStartMs.p50)})`,
        status: check(cached.ackToToolStartMs.p50 <= 20),
      });
    }
    const q = pass.query?.result;
    if (q) {
      rows.push({
        target: `\`state\` query ≤ 5 ms p50, cached ${tag}`,
        measured: `${ms(q.cached.p50)} (${q.historySteps}-step history; Temporal baseline ${ms(q.baseline.cached.p50)})`,
        status: check(q.cached.p50 <= 5),
      });
    }
    for (const p of pass.paused?.result ?? []) {
      const at10k = p.turns >= 10_000;
      rows.push({
        target: `10,000 paused turns: worker RSS ≤ 1 GB, all complete after approval — ${p.cache} cache ${tag}`,
        measured: `${p.turns} turns: RSS ${p.rssPausedMiB.toFixed(0)} MiB paused; ${p.completed}/${p.turns} completed`,
        status: !at10k ? 'not measured' : check(p.rssPausedMiB <= 1024 && p.notCompleted === 0),
        ...(!at10k && {
          note: `ran ${p.turns}, not 10,000 (${p.rssPausedMiB <= 1024 && p.notCompleted === 0 ? 'within' : 'outside'} the target at that size); run with --paused 10000`,
        }),
      });
    }
  }
  for (const pass of r.passes) {
    const local = pass.durable?.result?.local;
    if (!local || !floor) continue;
    const o50 = local.stepMs.p50 - floor.stepMs.p50;
    rows.push({
      target: `overhead ≤ 5 ms with local-activity tools (${pass.storage})`,
      measured: `${ms(o50)} p50 (${ms(local.stepMs.p50)} − floor ${ms(floor.stepMs.p50)})`,
      status: check(o50 <= 5),
    });
  }
  if (!r.passes.some((p) => p.durable?.result?.local)) {
    notMeasured('overhead ≤ 5 ms with local-activity tools', 'needs the durable section');
  }

  const h = r.history?.result;
  if (h) {
    const longest = h.turns[h.turns.length - 1]!;
    rows.push({
      target: '≤ 12 history events per tool step',
      measured: `${h.marginalEventsPerStep.toFixed(2)} events/step (marginal); ${longest.eventsPerStep.toFixed(2)} over a ${longest.steps}-step turn`,
      status: check(h.marginalEventsPerStep <= 12),
    });
    rows.push({
      target: 'history bytes grow linearly with conversation length',
      measured: `${h.marginalBytesPerStepFirst} B/step early vs ${h.marginalBytesPerStepLast} B/step late${h.fit ? `; n² term ${(h.fit.quadraticShareAtLongest * 100).toFixed(0)} % of the ${longest.steps}-step history` : ''}`,
      status: check(h.growth === 'linear'),
    });
  }

  const peer = r.peer?.result;
  if (peer?.ran && peer.peer && peer.oursStreamed && peer.oursUnary) {
    const like = peer.oursUnary.stepMs.p50 / peer.peer.stepMs.p50;
    const streamed = peer.oursStreamed.stepMs.p50 / peer.peer.stepMs.p50;
    rows.push({
      target: 'ours ≤ 0.8 × the official integration per tool step (p50)',
      measured: `${like.toFixed(2)} × unary, like for like (${ms(peer.oursUnary.stepMs.p50)} vs ${ms(peer.peer.stepMs.p50)}); ${streamed.toFixed(2)} × with our default streaming`,
      status: check(like <= 0.8),
    });
    rows.push({
      target: 'no more history events per tool step than the official integration',
      measured: `${peer.oursUnary.history.eventsPerStep.toFixed(2)} vs ${peer.peer.history.eventsPerStep.toFixed(2)} (${peer.stepsPerTurn}-step turn)`,
      status: check(peer.oursUnary.history.eventsPerStep <= peer.peer.history.eventsPerStep),
    });
  } else {
    notMeasured(
      'ours ≤ 0.8 × the official integration per step',
      r.peer ? (peer?.error ?? r.peer.error ?? 'no result').split('\n')[0]! : 'peer section not run',
    );
  }
  return rows;
}
