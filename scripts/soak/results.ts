/** The figures a soak writes (reliability-results.json), built from one run and its verdict. */
import { summarize, type Summary } from '../bench/stats';
import type { MachineInfo } from '../bench/machine';
import type { AuditReconciliation } from './audit-check';
import type { Verdict } from './checks';
import type { FaultKind, FaultRun } from './faults';
import type { SoakOptions } from './options';
import type { SoakRun } from './run';

export interface FaultFigures {
  injected: number;
  /** Why it was not injected, when it was not (e.g. no such process on this target). */
  notInjected?: string;
  downMs?: Summary;
  recoverMs?: Summary;
  /** Canaries that did not complete after this kind of fault. */
  unrecovered: number;
}

export interface ReliabilityResults {
  machine: MachineInfo;
  target: SoakOptions['target'];
  /** The server the target ran (version, persistence, layout). */
  targetDescription: string;
  options: Omit<SoakOptions, 'outDir' | 'target'>;
  seconds: number;
  zeros: Pick<Verdict, 'turnsLost' | 'effectsDuplicated' | 'decisionsLost' | 'usageMismatches'>;
  verdict: Verdict;
  /** The audit export of every turn, held against the decisions the soak sent (issue 37). */
  audit?: AuditReconciliation;
  faults: Partial<Record<FaultKind, FaultFigures>>;
  faultRuns: FaultRun[];
  modelRequests: SoakRun['modelCounts'];
  throughput: { workers: number; turns: number; turnMs: Summary; turnsPerSecond: number }[];
}

function byKind(runs: FaultRun[]): Partial<Record<FaultKind, FaultFigures>> {
  const out: Partial<Record<FaultKind, FaultFigures>> = {};
  for (const kind of new Set(runs.map((r) => r.kind))) {
    const of = runs.filter((r) => r.kind === kind);
    const injected = of.filter((r) => r.injected);
    const recovered = injected.filter((r) => r.recoverMs !== undefined);
    out[kind] = {
      injected: injected.length,
      ...(injected.length === 0 && { notInjected: of[0]?.note ?? 'not injected' }),
      ...(injected.length > 0 && { downMs: summarize(injected.map((r) => r.downMs ?? Number.NaN)) }),
      ...(recovered.length > 0 && { recoverMs: summarize(recovered.map((r) => r.recoverMs!)) }),
      unrecovered: injected.length - recovered.length,
    };
  }
  return out;
}

export function buildResults(
  machine: MachineInfo,
  opts: SoakOptions,
  run: SoakRun,
  verdict: Verdict,
  targetDescription: string,
  audit?: AuditReconciliation,
): ReliabilityResults {
  const { outDir: _outDir, target, ...options } = opts;
  return {
    machine,
    target,
    targetDescription,
    options,
    seconds: run.seconds,
    zeros: {
      turnsLost: verdict.turnsLost,
      effectsDuplicated: verdict.effectsDuplicated,
      decisionsLost: verdict.decisionsLost,
      usageMismatches: verdict.usageMismatches,
    },
    verdict,
    ...(audit && { audit }),
    faults: byKind(run.faults),
    faultRuns: run.faults,
    modelRequests: run.modelCounts,
    throughput: run.throughput.map(({ records: _records, ...pass }) => pass),
  };
}

/** Non-zero when anything was lost, duplicated, missing or mismatched, or the audit disagrees. */
export function failed(r: ReliabilityResults): boolean {
  return (
    Object.values(r.zeros).some((n) => n !== 0) || r.verdict.effectsMissing !== 0 || (r.audit?.problems.length ?? 0) > 0
  );
}
