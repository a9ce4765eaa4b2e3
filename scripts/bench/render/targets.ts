import type { BenchResults } from '../results';
import { evaluateEarlierTargets, evaluateTargets, type TargetRow } from '../targets';
import { table } from './format';

/** The targets: issue 13's (speed), then issue 5's, each with what this run measured. */
export function targetsSection(r: BenchResults): string[] {
  const L: string[] = [];
  const targetTable = (rows: TargetRow[]) =>
    table(
      ['target', 'measured', 'status', 'note'],
      rows.map((t) => [t.target, t.measured, t.status === 'met' ? 'met' : `**${t.status}**`, t.note ?? '']),
    );
  L.push('', '## Targets (issue 13: speed)', '', targetTable(evaluateTargets(r)));
  L.push('', '### Earlier targets (issue 5)', '', targetTable(evaluateEarlierTargets(r)));
  return L;
}
