import type { BenchResults } from '../results';
import { f, sectionHeader, table } from './format';

/** Section 3: starting a turn, eagerly and through the task queue. */
export function startSection(r: BenchResults): string[] {
  const L: string[] = [];
  const starting = r.start;
  if (sectionHeader('3. Starting a turn: eager workflow start', starting, L)) {
    const x = starting.result;
    L.push(
      'One-answer turns (no tool), started alternately by a TillerClient on the worker’s own connection that asks',
      'the server to hand the first workflow task straight back (`requestEagerStart`, Tiller’s default for such a',
      'client) and by one that does not. Start call → the model’s first request (the first workflow task and the',
      '`startTurn` activity are before it), and → the result.',
      '',
      table(
        ['start', 'start → first model request p50 ms', 'p95', 'start → result p50 ms', 'p95', 'eagerly started'],
        [
          [
            'eager',
            f(x.eager.firstRequestMs.p50),
            f(x.eager.firstRequestMs.p95),
            f(x.eager.resultMs.p50),
            f(x.eager.resultMs.p95),
            `${x.eager.eagerlyStarted}/${x.turns}`,
          ],
          [
            'through the task queue',
            f(x.plain.firstRequestMs.p50),
            f(x.plain.firstRequestMs.p95),
            f(x.plain.resultMs.p50),
            f(x.plain.resultMs.p95),
            `${x.plain.eagerlyStarted}/${x.turns}`,
          ],
        ],
      ),
    );
  }
  return L;
}
