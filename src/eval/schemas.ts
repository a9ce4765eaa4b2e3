/**
 * The evaluation report as it leaves the process (`tiller eval --json`, the library's result): zod
 * schemas, so a CI job or a dashboard can check what it reads.
 */
import { z } from 'zod';

const Tokens = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
  modelCalls: z.number().int().nonnegative(),
});

/** A tool call's arguments that differ between recording and candidate (same tool, same position). */
export const ArgDifference = z.object({
  index: z.number().int().nonnegative(),
  tool: z.string(),
  recorded: z.unknown(),
  candidate: z.unknown(),
});
export type ArgDifference = z.infer<typeof ArgDifference>;

/** One turn: recorded against candidate. */
export const TurnEvaluation = z.object({
  turnId: z.string(),
  runId: z.string().optional(),
  agent: z.string(),
  /** `same`: the same tools in the same order with the same arguments; else `different`. */
  toolCalls: z.enum(['same', 'different']),
  /** The candidate's tool calls differ from the recording's (fewer, more, others, other arguments). */
  divergent: z.boolean(),
  recordedTools: z.array(z.string()),
  candidateTools: z.array(z.string()),
  /** Candidate calls the recording did not make, answered by the stub (tool names, in order). */
  divergentCalls: z.array(z.string()),
  argDifferences: z.array(ArgDifference),
  approvals: z.object({
    /** Recorded human decisions the candidate's gates asked for again (answered as recorded). */
    asRecorded: z.number().int().nonnegative(),
    /** Calls the candidate's gates would ask a human about that the recording did not. */
    wouldAsk: z.number().int().nonnegative(),
    /** Recorded human decisions the candidate's gates would not ask for. */
    skipped: z.number().int().nonnegative(),
  }),
  answer: z.enum(['exact', 'different']),
  /** The judge's verdict, when a judge ran. */
  judge: z.object({ same: z.boolean(), note: z.string().optional() }).optional(),
  recorded: z.object({
    output: z.string(),
    usage: Tokens,
    costUsd: z.number().optional(),
    latencyMs: z.number().optional(),
  }),
  candidate: z.object({
    output: z.string(),
    usage: Tokens,
    estimatedCalls: z.number().int().nonnegative(),
    costUsd: z.number().optional(),
    latencyMs: z.number(),
    error: z.string().optional(),
  }),
});
export type TurnEvaluation = z.infer<typeof TurnEvaluation>;

/** Thresholds the run passes or fails (a CI job's exit code). Each is a fraction of the turns, 0..1. */
export const EvalThresholds = z.object({
  maxDivergent: z.number().min(0).max(1).optional(),
  maxToolCallsDifferent: z.number().min(0).max(1).optional(),
  maxAnswersDifferent: z.number().min(0).max(1).optional(),
  maxWouldAsk: z.number().int().nonnegative().optional(),
  maxErrors: z.number().int().nonnegative().optional(),
});
export type EvalThresholds = z.infer<typeof EvalThresholds>;

/** The whole evaluation: per turn, in total, turns that could not be evaluated, and the verdict. */
export const EvalReport = z.object({
  turns: z.array(TurnEvaluation),
  skipped: z.array(z.object({ turnId: z.string(), reason: z.string() })),
  totals: z.object({
    turns: z.number().int().nonnegative(),
    toolCallsSame: z.number().int().nonnegative(),
    toolCallsDifferent: z.number().int().nonnegative(),
    divergent: z.number().int().nonnegative(),
    argDifferences: z.number().int().nonnegative(),
    approvalsAsRecorded: z.number().int().nonnegative(),
    approvalsWouldAsk: z.number().int().nonnegative(),
    approvalsSkipped: z.number().int().nonnegative(),
    answersExact: z.number().int().nonnegative(),
    answersDifferent: z.number().int().nonnegative(),
    judgedSame: z.number().int().nonnegative().optional(),
    errors: z.number().int().nonnegative(),
    recordedTokens: z.number().int().nonnegative(),
    candidateTokens: z.number().int().nonnegative(),
    recordedCostUsd: z.number().optional(),
    candidateCostUsd: z.number().optional(),
    recordedLatencyMs: z.number().nonnegative(),
    candidateLatencyMs: z.number().nonnegative(),
  }),
  /** Thresholds passed (true without thresholds), and each one that failed. */
  passed: z.boolean(),
  failures: z.array(z.string()),
});
export type EvalReport = z.infer<typeof EvalReport>;

/** Prices per million tokens, by model name, for the estimated cost. */
export const ModelPrices = z.record(
  z.string(),
  z.object({ inputPerMTok: z.number().nonnegative(), outputPerMTok: z.number().nonnegative() }),
);
export type ModelPrices = z.infer<typeof ModelPrices>;
