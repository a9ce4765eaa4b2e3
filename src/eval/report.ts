/** The evaluation's totals, its verdict against thresholds, and its Markdown. Pure. */
import type { EvalReport, EvalThresholds, TurnEvaluation } from './schemas';

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const sumOpt = (xs: (number | undefined)[]) => (xs.some((x) => x === undefined) ? undefined : sum(xs as number[]));

/** Totals over the turns. */
export function totalsOf(turns: TurnEvaluation[]): EvalReport['totals'] {
  const judged = turns.filter((t) => t.judge);
  const recordedCost = sumOpt(turns.map((t) => t.recorded.costUsd));
  const candidateCost = sumOpt(turns.map((t) => t.candidate.costUsd));
  return {
    turns: turns.length,
    toolCallsSame: turns.filter((t) => t.toolCalls === 'same').length,
    toolCallsDifferent: turns.filter((t) => t.toolCalls === 'different').length,
    divergent: turns.filter((t) => t.divergent).length,
    argDifferences: sum(turns.map((t) => t.argDifferences.length)),
    approvalsAsRecorded: sum(turns.map((t) => t.approvals.asRecorded)),
    approvalsWouldAsk: sum(turns.map((t) => t.approvals.wouldAsk)),
    approvalsSkipped: sum(turns.map((t) => t.approvals.skipped)),
    answersExact: turns.filter((t) => t.answer === 'exact').length,
    answersDifferent: turns.filter((t) => t.answer === 'different').length,
    ...(judged.length > 0 && { judgedSame: judged.filter((t) => t.judge!.same).length }),
    errors: turns.filter((t) => t.candidate.error !== undefined).length,
    recordedTokens: sum(turns.map((t) => t.recorded.usage.totalTokens)),
    candidateTokens: sum(turns.map((t) => t.candidate.usage.totalTokens)),
    ...(turns.length > 0 && recordedCost !== undefined && { recordedCostUsd: recordedCost }),
    ...(turns.length > 0 && candidateCost !== undefined && { candidateCostUsd: candidateCost }),
    recordedLatencyMs: sum(turns.map((t) => t.recorded.latencyMs ?? 0)),
    candidateLatencyMs: sum(turns.map((t) => t.candidate.latencyMs)),
  };
}

/** Each threshold the totals break, in words (none: passed). */
export function thresholdFailures(t: EvalReport['totals'], th: EvalThresholds = {}): string[] {
  const out: string[] = [];
  const frac = (n: number) => (t.turns ? n / t.turns : 0);
  const check = (limit: number | undefined, value: number, what: string, asFraction: boolean) => {
    if (limit !== undefined && value > limit)
      out.push(
        `${what}: ${asFraction ? `${(value * 100).toFixed(1)}%` : value} > ${asFraction ? `${limit * 100}%` : limit}`,
      );
  };
  check(th.maxDivergent, frac(t.divergent), 'divergent turns', true);
  check(th.maxToolCallsDifferent, frac(t.toolCallsDifferent), 'turns with other tool calls', true);
  check(th.maxAnswersDifferent, frac(t.answersDifferent), 'turns with another answer', true);
  check(th.maxWouldAsk, t.approvalsWouldAsk, 'new approvals ("would ask")', false);
  check(th.maxErrors, t.errors, 'candidate errors', false);
  return out;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s+/g, ' ').slice(0, 80);
const usd = (x: number | undefined) => (x === undefined ? '—' : `$${x.toFixed(4)}`);

/** The report as Markdown: the verdict, the totals, then one row per turn. */
export function markdownReport(r: EvalReport): string {
  const t = r.totals;
  const lines = [
    `# Evaluation: ${r.passed ? 'passed' : 'FAILED'}`,
    '',
    ...r.failures.map((f) => `- threshold broken: ${f}`),
    ...(r.failures.length ? [''] : []),
    '| | recorded | candidate |',
    '|---|---|---|',
    `| turns | ${t.turns} | ${t.turns} |`,
    `| tool calls same / different | | ${t.toolCallsSame} / ${t.toolCallsDifferent} |`,
    `| divergent turns | | ${t.divergent} |`,
    `| argument differences | | ${t.argDifferences} |`,
    `| approvals as recorded / would ask / skipped | | ${t.approvalsAsRecorded} / ${t.approvalsWouldAsk} / ${t.approvalsSkipped} |`,
    `| answers exact / different | | ${t.answersExact} / ${t.answersDifferent} |`,
    ...(t.judgedSame !== undefined ? [`| judged the same | | ${t.judgedSame} |`] : []),
    `| tokens | ${t.recordedTokens} | ${t.candidateTokens} |`,
    `| estimated cost | ${usd(t.recordedCostUsd)} | ${usd(t.candidateCostUsd)} |`,
    `| latency (ms, summed) | ${t.recordedLatencyMs} | ${t.candidateLatencyMs} |`,
    `| candidate errors | | ${t.errors} |`,
    '',
    '| turn | tools recorded | tools candidate | divergent | answer | tokens |',
    '|---|---|---|---|---|---|',
    ...r.turns.map(
      (e) =>
        `| ${cell(e.turnId)} | ${cell(e.recordedTools.join(', ') || '—')} | ${cell(e.candidateTools.join(', ') || '—')} | ${
          e.divergent ? 'yes' : 'no'
        } | ${e.answer}${e.candidate.error ? ` (${cell(e.candidate.error)})` : ''} | ${e.recorded.usage.totalTokens} → ${
          e.candidate.usage.totalTokens
        } |`,
    ),
    ...(r.skipped.length ? ['', 'Not evaluated:', ...r.skipped.map((s) => `- ${s.turnId}: ${s.reason}`)] : []),
  ];
  return `${lines.join('\n')}\n`;
}
