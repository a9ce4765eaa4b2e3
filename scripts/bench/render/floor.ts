import type { BenchResults } from '../results';
import { f, pct, sectionHeader, table } from './format';

/** Section 1, the floor: the same loop in-process, without Temporal. */
export function floorSection(r: BenchResults): string[] {
  const L: string[] = [];
  const floor = r.floor;
  if (sectionHeader('1. Floor: the same loop without Temporal', floor, L)) {
    const fl = floor.result;
    L.push(
      'The loop in-process: `openai` client → scripted model (streamed) → argument validation → tool → model …, with',
      'the conversation growing exactly as in a turn. Step time = time between two consecutive model requests at the',
      'model server (the same measure as the durable runs).',
      '',
      table(['', 'p50 ms', 'p95 ms', 'p99 ms', 'mean ms', 'steps'], [['floor, per tool step', ...pct(fl.stepMs, 3)]]),
      '',
      `${fl.turns} turns of ${fl.stepsPerTurn} steps; client-side ${f(fl.clientMsPerStep, 3)} ms per step; slope ${f(fl.slopeMsPerStep, 5)} ms per step index.`,
    );
  }
  return L;
}
