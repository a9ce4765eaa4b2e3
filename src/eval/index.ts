/**
 * Evaluating a change to an agent against recorded turns (`tiller eval`): read the turns' histories,
 * re-run each under the candidate without executing any tool, and report what would change.
 *
 * In process, not as workflows: an evaluation is a short batch a person or a CI job waits for, every
 * input is already durable (the histories), and a re-run has nothing to resume that re-running it
 * would not redo at the same cost; turns run a few at a time (`concurrency`).
 *
 * @module
 */
import { setMaxListeners } from 'node:events';
import type { ModelPrices } from './schemas';
import { candidateSpec, type Candidate, type CandidateEndpoints } from './candidate';
import { compareTurn } from './compare';
import { readTurnHistories, type HistoryReader, type TurnSelection } from './history-source';
import { judgeAnswers, type JudgeOptions } from './judge';
import { isRecorded, recordedTurn, type RecordedTurn } from './recorded';
import { rerunTurn } from './rerun';
import { DEFAULT_STUB, type ToolStub } from './recorded-tools';
import { markdownReport, thresholdFailures, totalsOf } from './report';
import type { EvalReport, EvalThresholds, TurnEvaluation } from './schemas';

export type { Candidate, CandidateEndpoints } from './candidate';
export type { TurnSelection, HistoryReader } from './history-source';
export type { JudgeOptions } from './judge';
export type { ToolStub } from './recorded-tools';
export { DEFAULT_STUB, markdownReport };
export { EvalReport, EvalThresholds, ModelPrices, TurnEvaluation } from './schemas';
export { readTurnHistories } from './history-source';
export { decodeTurnHistory, type TurnHistory, type DecideMessage } from './history-decode';
export { HistoryFile, parseHistoryFile, readHistoryFolder } from './history-file';

/** An evaluation: which turns, the candidate, where its model is, and what passes. */
export interface EvaluateOptions extends HistoryReader {
  turns: TurnSelection;
  /** Where the candidate's (and the judge's) model calls go: an OpenAI client, or endpoints and providers. */
  model: CandidateEndpoints;
  candidate: Candidate;
  /** Answers a call the recording did not make (default {@link DEFAULT_STUB}). */
  stub?: ToolStub;
  /** A model that judges whether answers say the same (default: none; answers compared exactly). */
  judge?: JudgeOptions;
  thresholds?: EvalThresholds;
  prices?: ModelPrices;
  /** Turns re-run at once (default 2). */
  concurrency?: number;
  signal?: AbortSignal;
  /** Called as each turn is evaluated. */
  onTurn?: (evaluation: TurnEvaluation) => void;
}

/** Evaluates the candidate on the selected turns; the report says per turn and in total, and whether it passed. */
export async function evaluate(opts: EvaluateOptions): Promise<EvalReport> {
  const histories = await readTurnHistories(opts.turns, opts);
  const parsed = histories.map(recordedTurn);
  const turns = parsed.filter(isRecorded);
  const skipped = parsed.filter((t) => !isRecorded(t)) as EvalReport['skipped'];
  const signal = opts.signal ?? new AbortController().signal;
  setMaxListeners(0, signal); // one listener per model call in flight, from every lane
  const one = async (turn: RecordedTurn): Promise<TurnEvaluation> => {
    const spec = candidateSpec(turn.spec, opts.candidate);
    const run = await rerunTurn(turn, spec, opts.model, { stub: opts.stub ?? DEFAULT_STUB, signal });
    const evaluation = compareTurn(turn, spec, run, opts.prices);
    if (opts.judge && !run.error && evaluation.answer === 'different') {
      evaluation.judge = await judgeAnswers(
        opts.model,
        opts.judge,
        { turnId: turn.turnId, input: turn.input, recorded: turn.output, candidate: run.output },
        signal,
      ).catch((err: Error) => ({ same: false, note: `judge failed: ${err.message.slice(0, 200)}` }));
    }
    opts.onTurn?.(evaluation);
    return evaluation;
  };
  const evaluations = await inLanes(turns, opts.concurrency ?? 2, one);
  const totals = totalsOf(evaluations);
  const failures = thresholdFailures(totals, opts.thresholds);
  return { turns: evaluations, skipped, totals, passed: failures.length === 0, failures };
}

async function inLanes<T, R>(items: T[], lanes: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(lanes, items.length)) }, lane));
  return out;
}
