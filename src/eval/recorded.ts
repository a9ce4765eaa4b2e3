/**
 * A recorded turn as an evaluation replays it: its agent and input, the spec it ran on, the tool calls
 * it made (with their results and decisions), its answer, tokens and latency. Pure: built from a
 * decoded history (./history-decode.ts), every part checked by the contract's zod schemas.
 */
import { z } from 'zod';
import { TurnInput, TurnResult, type ToolCallRecord } from '../core/schemas';
import type { AgentSpec } from '../core/spec';
import type { TurnHistory } from './history-decode';

/** The parts of a recorded `AgentSpec` an evaluation needs, checked (the rest is kept as recorded). */
const RecordedSpec = z.looseObject({
  name: z.string(),
  instructions: z.string(),
  model: z.string(),
  tools: z.array(
    z.looseObject({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) }),
  ),
  gates: z.record(z.string(), z.looseObject({})),
});
const Started = z.looseObject({ spec: RecordedSpec });

/** One recorded turn, ready to evaluate. */
export interface RecordedTurn {
  turnId: string;
  runId?: string;
  agent: string;
  input: string;
  /** The spec `startTurn` resolved for it (instructions, model, tools, gates). */
  spec: AgentSpec;
  toolCalls: ToolCallRecord[];
  status: TurnResult['status'];
  output: string;
  usage: TurnResult['usage'];
  /** Start to close, from history's event times. */
  latencyMs?: number;
}

/** Why a history is not a turn an evaluation can replay. */
export interface NotEvaluable {
  turnId: string;
  reason: string;
}

/** The recorded turn, or why it cannot be evaluated (not a turn, still running, no result, a sub-agent …). */
export function recordedTurn(h: TurnHistory): RecordedTurn | NotEvaluable {
  const turnId = h.workflowId;
  if (h.workflowType !== undefined && h.workflowType !== 'agentTurn')
    return { turnId, reason: `a ${h.workflowType} workflow, not a turn` };
  const input = TurnInput.safeParse(h.input);
  if (!input.success) return { turnId, reason: 'its input is not a turn input' };
  if (input.data.history?.length) return { turnId, reason: 'a turn with earlier conversation (not yet evaluated)' };
  const started = Started.safeParse(h.started);
  if (!started.success) return { turnId, reason: 'no recorded agent spec (startTurn)' };
  const result = TurnResult.safeParse(h.result);
  if (!result.success) return { turnId, reason: `no turn result (${h.status})` };
  const latency =
    h.startedAt && h.closedAt ? new Date(h.closedAt).getTime() - new Date(h.startedAt).getTime() : undefined;
  return {
    turnId,
    ...(h.runId !== undefined && { runId: h.runId }),
    agent: input.data.agent,
    input: input.data.input,
    spec: started.data.spec as unknown as AgentSpec,
    toolCalls: result.data.toolCalls,
    status: result.data.status,
    output: result.data.output,
    usage: result.data.usage,
    ...(latency !== undefined && { latencyMs: latency }),
  };
}

export const isRecorded = (t: RecordedTurn | NotEvaluable): t is RecordedTurn => 'spec' in t;
