/**
 * Re-runs one recorded turn under the candidate, in process, without executing any tool: the candidate's
 * model is called for real; each tool call it makes is answered from the recording (./recorded-tools.ts);
 * gated calls are answered as the recording decided them, and a gate the recording did not pass through
 * is counted as "would ask". The loop mirrors the turn's: model, tool results in the model's order, until
 * an answer or `maxModelCalls`.
 */
import { parseToolArgs } from '../core/args';
import type { ChatMessage } from '../core/spec';
import { callCandidate, type CandidateEndpoints } from './candidate';
import type { AgentSpec } from '../core/spec';
import type { RecordedTurn } from './recorded';
import { RecordedTools, type ToolStub } from './recorded-tools';

/** One tool call the candidate made, and how it was answered. */
export interface CandidateCall {
  name: string;
  args: unknown;
  /** The recorded call it matched (its id), or absent: divergent, answered by the stub. */
  recordedId?: string;
  /** A human decided the recorded call, and the candidate's gate asks too: answered as recorded. */
  asked?: 'as_recorded' | 'would_ask';
}

/** The candidate's run of one turn. */
export interface CandidateRun {
  calls: CandidateCall[];
  output: string;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number; modelCalls: number };
  /** Model calls whose server reported no usage (their tokens are estimates). */
  estimatedCalls: number;
  latencyMs: number;
  /** The candidate stopped without an answer (`maxModelCalls`), or its model failed. */
  error?: string;
}

const HUMAN = new Set(['update', 'signal']);

/** Runs the candidate spec on a recorded turn's input. */
export async function rerunTurn(
  turn: RecordedTurn,
  spec: AgentSpec,
  endpoints: CandidateEndpoints,
  opts: { stub?: ToolStub; signal?: AbortSignal } = {},
): Promise<CandidateRun> {
  const tools = new RecordedTools(turn.toolCalls, opts.stub);
  const messages: ChatMessage[] = [
    ...(spec.instructions ? [{ role: 'system' as const, content: spec.instructions }] : []),
    { role: 'user', content: turn.input },
  ];
  const run: CandidateRun = {
    calls: [],
    output: '',
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, modelCalls: 0 },
    estimatedCalls: 0,
    latencyMs: 0,
  };
  const signal = opts.signal ?? new AbortController().signal;
  for (let call = 1; call <= spec.maxModelCalls; call++) {
    let answer;
    try {
      answer = await callCandidate(endpoints, spec, messages, { turnId: turn.turnId, call, signal });
    } catch (err) {
      run.error = `model call ${call}: ${(err as Error).message.slice(0, 500)}`;
      return run;
    }
    run.usage.inputTokens += answer.usage.inputTokens;
    run.usage.outputTokens += answer.usage.outputTokens;
    run.usage.totalTokens += answer.usage.totalTokens;
    run.usage.modelCalls += 1;
    if (answer.estimated) run.estimatedCalls += 1;
    run.latencyMs += answer.durationMs;
    messages.push(answer.message);
    const calls = answer.message.tool_calls ?? [];
    if (!calls.length) {
      run.output = answer.message.content ?? '';
      return run;
    }
    for (const c of calls) {
      const parsed = parseToolArgs(c.function.arguments);
      const args = parsed.type === 'valid' ? parsed.value : c.function.arguments;
      const matched = tools.match(c.function.name, args);
      const gated = spec.gates[c.function.name] !== undefined;
      const decidedByHuman = matched?.decision !== undefined && HUMAN.has(matched.decision.via);
      const asked = gated ? (decidedByHuman ? 'as_recorded' : 'would_ask') : undefined;
      run.calls.push({
        name: c.function.name,
        args,
        ...(matched && { recordedId: matched.id }),
        ...(asked && { asked }),
      });
      messages.push({
        role: 'tool',
        tool_call_id: c.id,
        content: tools.answer(c.function.name, args, matched).content,
      });
    }
  }
  run.error = `no answer after ${spec.maxModelCalls} model calls`;
  return run;
}
