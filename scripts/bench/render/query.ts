import type { BenchResults } from '../results';
import type { Summary } from '../stats';
import { SERVER_NAMES } from '../targets';
import { pct, table } from './format';

/** Section 6: query latency, cached and evicted, against bare queries. */
export function querySection(r: BenchResults): string[] {
  const L: string[] = [];
  L.push('', '## 6. Queries', '');
  const qRows: (string | number)[][] = [];
  for (const p of r.passes) {
    if (!p.query) continue;
    if (!p.query.result) {
      qRows.push([SERVER_NAMES[p.storage], `failed: ${p.query.error ?? ''}`]);
      continue;
    }
    const q = p.query.result;
    const hist = (events: number) => `${q.historySteps} steps, ${events} events`;
    const rowsOf: [string, string, Summary | undefined, string, number | string][] = [
      ['cached', '`state`', q.cached, hist(q.historyEvents), q.stateJsonBytes],
      ['cached', '`summary`', q.summary?.cached, hist(q.historyEvents), q.summaryJsonBytes ?? '—'],
      ['cached', '`events`, the newest 20', q.events?.cached, hist(q.historyEvents), '—'],
      ['cached', 'bare query (Temporal baseline)', q.baseline.cached, hist(q.baseline.historyEvents), '—'],
      [
        'cached',
        'bare query of `state`’s size (Temporal baseline)',
        q.baseline.sized?.cached,
        hist(q.baseline.historyEvents),
        q.baseline.sized?.jsonBytes ?? '—',
      ],
      ['evicted', '`state`', q.evicted, hist(q.historyEvents), q.stateJsonBytes],
      ['evicted', '`state`, fast-path turn', q.fast?.evicted, hist(q.fast?.historyEvents ?? 0), '—'],
      ['evicted', '`summary`', q.summary?.evicted, hist(q.historyEvents), q.summaryJsonBytes ?? '—'],
      ['evicted', 'bare query (Temporal baseline)', q.baseline.evicted, hist(q.baseline.historyEvents), '—'],
    ];
    for (const [mode, who, sm, history, bytes] of rowsOf) {
      if (sm) qRows.push([SERVER_NAMES[p.storage], mode, who, ...pct(sm), history, bytes]);
    }
  }
  L.push(
    'A turn of N tool steps, then paused on an approval; sequential queries from the client, each kind in turn.',
    'Evicted: a worker that caches nothing (`maxCachedWorkflows: 0`), so each query replays the whole history.',
    'The Temporal baseline: a bare workflow after the same number of steps (two activities each), waiting, whose',
    'query returns two numbers; and the same workflow answering records of about as many bytes of JSON as `state`',
    '(built once and kept in the workflow, as Tiller keeps its state): what moving such an answer costs without Tiller.',
    '',
    qRows.length
      ? table(
          ['server', 'cache', 'query', 'p50 ms', 'p95 ms', 'p99 ms', 'mean ms', 'queries', 'history', 'JSON bytes'],
          qRows,
        )
      : '_Not run in this invocation._',
  );
  return L;
}
