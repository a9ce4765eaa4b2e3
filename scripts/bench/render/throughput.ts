import type { BenchResults } from '../results';
import { SERVER_NAMES, variantName } from '../targets';
import { f, loadOf, table } from './format';

/** Section 4: tool steps per second with C turns at once, per server and loop. */
export function throughputSection(r: BenchResults): string[] {
  const L: string[] = [];
  L.push('', '## 4. Throughput', '');
  const tpRows: (string | number)[][] = [];
  for (const p of r.passes) {
    if (!p.throughput) continue;
    if (!p.throughput.result) {
      tpRows.push([SERVER_NAMES[p.storage], `failed: ${p.throughput.error ?? ''}`]);
      continue;
    }
    for (const l of p.throughput.result) {
      tpRows.push([
        SERVER_NAMES[p.storage],
        variantName(l.variant).loop,
        l.concurrency,
        `${l.concurrency} × ${l.stepsPerLane} (${l.turns} turns)`,
        f(l.wallS, 2),
        f(l.stepsPerS, 1),
        f(l.stepMs.p50),
        f(l.stepMs.p95),
        l.cpu ? `${f(l.cpu.serverMs)} + ${f(l.cpu.benchMs)}` : '—',
        loadOf(p.throughput),
      ]);
    }
  }
  L.push(
    'C lanes of turns at once on one worker (each lane runs turns of at most --steps steps back to back); steps/s =',
    'all tool steps ÷ wall time from the first start to the last result.',
    'CPU per step as in section 2: with both cores saturated, 2 000 ms/s ÷ (server + bench CPU per step) bounds the',
    'steps/s this machine can reach at all. The bare loop (the Temporal baseline of section 2, on its own worker) runs',
    'the same lanes last: what this server and machine allow a loop of this shape without Tiller.',
    '',
    tpRows.length
      ? table(
          [
            'server',
            'loop',
            'concurrent turns',
            'lanes × steps',
            'wall s',
            'tool steps/s',
            'step p50 ms',
            'step p95 ms',
            'CPU ms/step server + bench',
            'load',
          ],
          tpRows,
        )
      : '_Not run in this invocation._',
  );
  return L;
}
