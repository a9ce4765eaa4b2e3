import type { BenchResults } from '../results';
import type { DurableResult } from '../sections/durable';
import { SERVER_NAMES } from '../targets';
import { f, loadOf, pct, table } from './format';

/** Section 2: per-step latency of the bare loop, Tiller and its fast path on each server, and where a step goes. */
export function durableSection(r: BenchResults): string[] {
  const L: string[] = [];
  L.push('', '## 2. Durable per-step latency, side by side', '');
  L.push(
    'Turns of N tool steps on the real worker. Step time is taken **outside the workflow**, on the model server:',
    'the time between two consecutive model requests of one turn. Three loops alternate on each server: the',
    '**bare loop** (the smallest Temporal workflow of the same shape: per step the same streamed model call and a',
    'no-op tool activity, a constant-size request; no Tiller state, events, visibility or growing conversation),',
    '**Tiller** with the tool as an activity, and **Tiller, fast path** (the tool read-only: a local activity). Over',
    'floor = p50 − the in-process floor’s p50. CPU per step: user + system time of the dev server process and of the',
    'bench process (worker threads and core, client, model server) during the measured turns, divided by their steps.',
    'Slope = least-squares ms per step index, averaged over the turns. A fourth loop, where run, is **Tiller with',
    'what issue 26 added configured but never acting** (an input and an output guardrail that pass, a context window',
    'never reached, a handoff never taken): the Tiller loop is the figure without them, this one what they cost a step.',
    '',
  );
  const durableRows: (string | number)[][] = [];
  const phaseRows: (string | number)[][] = [];
  const stockBare = r.passes.find((p) => p.storage === 'stock')?.durable?.result?.baseline.stepMs.p50;
  for (const p of r.passes) {
    const d = p.durable;
    if (!d) continue;
    if (!d.result) {
      durableRows.push([SERVER_NAMES[p.storage], `failed: ${d.error ?? ''}`]);
      continue;
    }
    for (const [who, x] of loops(d.result)) {
      durableRows.push([
        SERVER_NAMES[p.storage],
        who,
        ...pct(x.stepMs).slice(0, 3),
        r.floor?.result ? f(x.stepMs.p50 - r.floor.result.stepMs.p50) : '—',
        f(x.stepMs.p50 / d.result.baseline.stepMs.p50),
        stockBare ? f(x.stepMs.p50 / stockBare) : '—',
        `${f(x.cpu.serverMs)} + ${f(x.cpu.benchMs)}`,
        f(x.slopeMsPerStep, 4),
        `${x.turns} × ${d.result.stepsPerTurn}`,
        loadOf(d),
      ]);
    }
    const ph = d.result.phases;
    for (const [who, x] of [
      ['bare loop', ph.baseline],
      ['Tiller', ph.tiller],
      ['Tiller, fast path', ph.fast],
    ] as const) {
      if (!x) continue;
      phaseRows.push([
        SERVER_NAMES[p.storage],
        who,
        f(x.workflowTasksPerStep),
        f(x.workflowTaskScheduleToStartP50),
        f(x.workflowTaskStartToCompleteP50),
        f(x.activityScheduleToCompleteP50),
      ]);
    }
  }
  L.push(
    durableRows.length
      ? table(
          [
            'server',
            'loop',
            'p50 ms',
            'p95 ms',
            'p99 ms',
            'over floor p50',
            '÷ bare loop, same server',
            '÷ bare loop on stock',
            'CPU ms/step server + bench',
            'slope ms/step',
            'turns × steps',
            'load',
          ],
          durableRows,
        )
      : '_Not run in this invocation._',
    ...(phaseRows.length
      ? [
          '',
          'Where a step goes, from the server’s event timestamps of the last measured turn of each loop (p50 over its',
          'tasks). A workflow task’s schedule → start is the wait for the history shard’s transfer queue to hand it to',
          'matching and a worker’s poll to take it; start → complete is the worker’s processing plus its round trips;',
          'an activity’s schedule → complete is dispatch, execution and report (the fast path has no tool activity).',
          '',
          table(
            [
              'server',
              'loop',
              'workflow tasks per step',
              'workflow task schedule → start ms',
              'workflow task start → complete ms',
              'activity schedule → complete ms',
            ],
            phaseRows,
          ),
        ]
      : []),
  );
  return L;
}

const FEATURES_LOOP = 'Tiller with guardrails, a context window and a handoff (passing, unreached, untaken)';

/** The loops of a durable pass, in table order. */
function loops(d: DurableResult) {
  const tiller = {
    turns: d.turns,
    stepMs: d.stepMs,
    clientMsPerStep: d.clientMsPerStep,
    slopeMsPerStep: d.slopeMsPerStep,
    cpu: d.cpu,
  };
  return [
    ['bare loop (Temporal baseline)', d.baseline],
    ['Tiller', tiller],
    ...(d.fast ? [['Tiller, fast path', d.fast] as const] : []),
    ...(d.features ? [[FEATURES_LOOP, d.features] as const] : []),
  ] as const;
}
