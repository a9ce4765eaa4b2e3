/**
 * The fuzz run's size and seed, and the budgets its invariants hold a turn to. CI runs 4 cases per
 * class at a random seed, printed (a failure is reproduced with TILLER_FUZZ_SEED=<it>); `npm run fuzz --
 * --runs N --seed S` (or TILLER_FUZZ_RUNS / TILLER_FUZZ_SEED) a larger run. Issue 34: CI ran 2 cases per
 * class at one fixed seed, so every run met the same 40 cases.
 */
import { randomInt } from 'node:crypto';

/** Cases per class in CI: every class met with several cases on every run (~3 min for the 20 classes). */
export const DEFAULT_CASES_PER_CLASS = 4;

export interface FuzzConfig {
  seed: number;
  /** Cases generated for each class. */
  casesPerClass: number;
  /** Whether this is an on-demand run (TILLER_FUZZ_RUNS set), not the CI default. */
  onDemand: boolean;
  /** TILLER_FUZZ_RUNS, on an on-demand run. */
  runs?: number;
}

/**
 * TILLER_FUZZ_RUNS is the total number of cases, spread evenly over `classes` (at least one each);
 * TILLER_FUZZ_SEED the seed (without it, a random one). Without TILLER_FUZZ_RUNS: the CI run's size.
 */
export function fuzzConfig(classes: number, env: NodeJS.ProcessEnv = process.env): FuzzConfig {
  const seed = intFrom(env.TILLER_FUZZ_SEED, 'TILLER_FUZZ_SEED') ?? randomInt(0, 2 ** 31);
  const runs = intFrom(env.TILLER_FUZZ_RUNS, 'TILLER_FUZZ_RUNS');
  if (runs === undefined) return { seed, casesPerClass: DEFAULT_CASES_PER_CLASS, onDemand: false };
  return { seed, casesPerClass: Math.max(1, Math.ceil(runs / Math.max(1, classes))), onDemand: true, runs };
}

/** The line a run prints first: its seed, and the command that runs the same cases again. */
export function seedLine(cfg: FuzzConfig): string {
  const runs = cfg.runs !== undefined ? ` TILLER_FUZZ_RUNS=${cfg.runs}` : '';
  return `fuzz seed ${cfg.seed} (${cfg.casesPerClass} cases per class); the same cases again: TILLER_FUZZ_SEED=${cfg.seed}${runs} npx jest test/integration/fuzz.test.ts`;
}

function intFrom(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${raw}`);
  return n;
}

/** The same seed gives each class its own stream of cases, whatever the other classes are. */
export function classSeed(seed: number, cls: string): number {
  let hash = seed | 0;
  for (let i = 0; i < cls.length; i++) hash = (Math.imul(hash, 31) + cls.charCodeAt(i)) | 0;
  return hash;
}

const KiB = 1024;

/** The budgets every invariant is checked against; see the fuzz test's header for why each. */
export const BUDGETS = {
  /**
   * A turn reaches a defined state (completed, failed, or awaiting approval with nothing in flight)
   * within this long of its last input. A normal fuzz turn settles in a few seconds here; the model
   * activity's first retry comes after 1 s; 30 s is far from both and far below "never".
   */
  settleMs: 30_000,
  /** An awaiting turn, cancelled, is closed within this long. */
  cancelMs: 15_000,
  /**
   * One `state` query (or describe, or history read) may take this long before it counts as not
   * answering. On the local dev server a healthy turn answers in milliseconds.
   */
  queryMs: 5_000,
  /** `state` as JSON stays under 1 MB (issue 12's budget; Temporal refuses payloads over 2 MB). */
  stateBytes: 1_000_000,
  /** A rejected decision may grow `state` by one short DECISION_REJECTED: a few KB, never its payload. */
  stateGrowthPerRejection: 4 * KiB,
  /**
   * A rejected signal adds its own WorkflowExecutionSignaled event (the payload, up to 2 MB: Temporal
   * records every signal). Everything else it causes (workflow task events, search attributes) stays
   * under this; a rejected update adds nothing beyond it.
   */
  historyOverheadPerRejection: 8 * KiB,
  /**
   * History beyond the model's own answers (the callModel results): every byte of an answer may
   * reach history again in the tool's activity input, its preview's input and its validation, plus
   * a fixed cost per tool call and per turn. More than that is amplification.
   */
  historyPerModelByte: 3,
  historyPerToolCall: 4 * KiB,
  historyPerTurn: 64 * KiB,
} as const;
