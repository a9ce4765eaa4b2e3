/**
 * What every section of BENCHMARKS.md formats with: numbers (`f`, `pct`), table rows and tables, a
 * section's load line and its heading (with the not-run and failed cases).
 */
import type { Timed } from '../results';
import type { Summary } from '../stats';

export const f = (x: number | undefined, d = 2) => (x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(d));
export const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
export function table(head: string[], rows: (string | number)[][]): string {
  for (const r of rows) {
    if (r.length > head.length)
      throw new Error(`render: a row has ${r.length} cells for ${head.length} columns: ${r[0]}`);
  }
  const padded = rows.map((r) => [...r, ...Array<string>(head.length - r.length).fill('')]);
  return [row(head), row(head.map(() => '---')), ...padded.map(row)].join('\n');
}
export const loadOf = (t: Timed<unknown>) =>
  `load ${t.loadStart.join(' / ')} → ${t.loadEnd.join(' / ')}` +
  (t.cpu ? `; CPU busy ${f(t.cpu.busyPct, 0)} %, steal ${f(t.cpu.stealPct, 0)} %` : '') +
  `; ${f(t.seconds, 0)} s`;
export const pct = (s: Summary, d = 2) => [f(s.p50, d), f(s.p95, d), f(s.p99, d), f(s.mean, d), s.n];

export function sectionHeader<T>(
  title: string,
  t: Timed<T> | undefined,
  lines: string[],
): t is Timed<T> & { result: T } {
  lines.push('', `## ${title}`, '');
  if (!t) {
    lines.push('_Not run in this invocation._');
    return false;
  }
  lines.push(`_${loadOf(t)}_`, '');
  if (t.error !== undefined || t.result === undefined) {
    lines.push('**Failed:**', '', '```', t.error ?? 'no result', '```');
    return false;
  }
  return true;
}
