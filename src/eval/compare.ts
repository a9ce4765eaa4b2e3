/**
 * Recorded against candidate for one turn: the tool-call sequence, argument differences, approvals
 * asked as recorded, newly asked or skipped, the answer, tokens, cost and latency. Pure.
 */
import { canonicalJson } from '../core/digest';
import type { AgentSpec } from '../core/spec';
import type { RecordedTurn } from './recorded';
import type { CandidateRun } from './rerun';
import type { ArgDifference, ModelPrices, TurnEvaluation } from './schemas';

const HUMAN = new Set(['update', 'signal']);

/** Estimated cost of `usage` on `model`, when its price is known. */
export function costOf(
  prices: ModelPrices | undefined,
  model: string,
  usage: { inputTokens: number; outputTokens: number },
): number | undefined {
  const p = prices?.[model];
  if (!p) return undefined;
  return (usage.inputTokens * p.inputPerMTok + usage.outputTokens * p.outputPerMTok) / 1_000_000;
}

/** The comparison of one recorded turn and the candidate's run of it. */
export function compareTurn(
  turn: RecordedTurn,
  candidateSpec: AgentSpec,
  run: CandidateRun,
  prices?: ModelPrices,
): TurnEvaluation {
  const recorded = turn.toolCalls;
  const argDifferences: ArgDifference[] = [];
  const n = Math.min(recorded.length, run.calls.length);
  for (let i = 0; i < n; i++) {
    const r = recorded[i]!;
    const c = run.calls[i]!;
    if (r.name === c.name && canonicalJson(r.args) !== canonicalJson(c.args))
      argDifferences.push({ index: i, tool: r.name, recorded: r.args, candidate: c.args });
  }
  const sameSequence =
    recorded.length === run.calls.length &&
    recorded.every(
      (r, i) => r.name === run.calls[i]!.name && canonicalJson(r.args) === canonicalJson(run.calls[i]!.args),
    );
  const divergentCalls = run.calls.filter((c) => c.recordedId === undefined).map((c) => c.name);
  const matchedIds = new Set(run.calls.map((c) => c.recordedId).filter((id) => id !== undefined));
  const skipped = recorded.filter(
    (r) =>
      r.decision !== undefined &&
      HUMAN.has(r.decision.via) &&
      (!matchedIds.has(r.id) || candidateSpec.gates[r.name] === undefined),
  ).length;
  const costRecorded = costOf(prices, turn.spec.model, turn.usage);
  const costCandidate = costOf(prices, candidateSpec.model, run.usage);
  return {
    turnId: turn.turnId,
    ...(turn.runId !== undefined && { runId: turn.runId }),
    agent: turn.agent,
    toolCalls: sameSequence ? 'same' : 'different',
    divergent: !sameSequence || divergentCalls.length > 0,
    recordedTools: recorded.map((r) => r.name),
    candidateTools: run.calls.map((c) => c.name),
    divergentCalls,
    argDifferences,
    approvals: {
      asRecorded: run.calls.filter((c) => c.asked === 'as_recorded').length,
      wouldAsk: run.calls.filter((c) => c.asked === 'would_ask').length,
      skipped,
    },
    answer: !run.error && run.output === turn.output ? 'exact' : 'different',
    recorded: {
      output: turn.output,
      usage: {
        inputTokens: turn.usage.inputTokens,
        outputTokens: turn.usage.outputTokens,
        totalTokens: turn.usage.totalTokens,
        modelCalls: turn.usage.modelCalls,
      },
      ...(costRecorded !== undefined && { costUsd: costRecorded }),
      ...(turn.latencyMs !== undefined && { latencyMs: turn.latencyMs }),
    },
    candidate: {
      output: run.output,
      usage: run.usage,
      estimatedCalls: run.estimatedCalls,
      ...(costCandidate !== undefined && { costUsd: costCandidate }),
      latencyMs: run.latencyMs,
      ...(run.error !== undefined && { error: run.error }),
    },
  };
}
