/** Counting what the fuzz tried and what happened, per class, and the summary it prints. */

export interface CaseOutcome {
  label: string;
  /** How the turn ended up: completed, failed, awaiting, task-retrying, timeout … */
  end: string;
  ms: number;
  stateBytes?: number;
  historyBytes?: number;
  violations: string[];
  /** Extra counts (signals sent, updates rejected …). */
  counts?: Record<string, number>;
}

export class Tally {
  private readonly classes = new Map<string, CaseOutcome[]>();

  constructor(
    readonly seed: number,
    readonly casesPerClass: number,
  ) {}

  add(cls: string, outcome: CaseOutcome): void {
    const list = this.classes.get(cls) ?? [];
    list.push(outcome);
    this.classes.set(cls, list);
  }

  outcomes(cls: string): CaseOutcome[] {
    return this.classes.get(cls) ?? [];
  }

  /** The failed cases of a class, one line each (what `expect` shows when a class fails). */
  failures(cls: string): string[] {
    return this.outcomes(cls)
      .filter((o) => o.violations.length > 0)
      .map((o) => `${o.label} → ${o.end}: ${o.violations.join('; ')}`);
  }

  /** Every case, one line each: how it ended, its time and state size, the invariants it broke. */
  cases(): string {
    const lines: string[] = [];
    for (const [cls, list] of this.classes) {
      for (const o of list) {
        const failed = [...new Set(o.violations.map((v) => v.slice(0, 2)))].join(',');
        const line = `  ${failed ? `FAIL ${failed}` : 'ok'} ${cls} [${o.end}, ${(o.ms / 1000).toFixed(1)} s, state ${o.stateBytes === undefined ? '-' : kb(o.stateBytes)}] ${o.label}`;
        lines.push(line.length > 220 ? `${line.slice(0, 220)}…` : line);
      }
    }
    return lines.join('\n');
  }

  summary(): string {
    const lines = [`fuzz summary — seed ${this.seed}, ${this.casesPerClass} cases per class`];
    let total = 0;
    let failed = 0;
    for (const [cls, list] of this.classes) {
      const bad = list.filter((o) => o.violations.length > 0);
      total += list.length;
      failed += bad.length;
      const ends = countBy(list.map((o) => o.end));
      const inv = countBy(bad.flatMap((o) => [...new Set(o.violations.map((v) => v.slice(0, 2)))]));
      const counts = sumCounts(list);
      const maxState = Math.max(0, ...list.map((o) => o.stateBytes ?? 0));
      const maxHistory = Math.max(0, ...list.map((o) => o.historyBytes ?? 0));
      const ms = list.reduce((a, o) => a + o.ms, 0);
      lines.push(
        `  ${cls.padEnd(34)} ${String(list.length).padStart(4)} cases, ${String(bad.length).padStart(3)} failed` +
          ` | ends ${fmt(ends)}${bad.length ? ` | failed ${fmt(inv)}` : ''}` +
          `${Object.keys(counts).length ? ` | ${fmt(counts)}` : ''}` +
          ` | max state ${kb(maxState)}, max history ${kb(maxHistory)}, ${(ms / 1000).toFixed(1)} s`,
      );
    }
    lines.push(`  total: ${total} cases, ${failed} failed`);
    return lines.join('\n');
  }
}

function countBy(keys: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of keys) out[k] = (out[k] ?? 0) + 1;
  return out;
}

function sumCounts(list: CaseOutcome[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const o of list) for (const [k, v] of Object.entries(o.counts ?? {})) out[k] = (out[k] ?? 0) + v;
  return out;
}

const fmt = (r: Record<string, number>) =>
  Object.entries(r)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
const kb = (n: number) => (n >= 1_000_000 ? `${(n / 1_000_000).toFixed(2)} MB` : `${(n / 1000).toFixed(1)} KB`);
