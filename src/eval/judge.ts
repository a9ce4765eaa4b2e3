/**
 * The optional judge (off by default): a model asked whether the candidate's answer says the same as
 * the recorded one, through the same model call path as the candidate. It answers SAME or DIFFERENT.
 */
import type { AgentSpec } from '../core/spec';
import { callCandidate, type CandidateEndpoints } from './candidate';

/** Which model judges, and how it is told to. */
export interface JudgeOptions {
  model: string;
  provider?: string;
  instructions?: string;
}

export const JUDGE_INSTRUCTIONS =
  'You compare two answers to the same request. Reply with exactly one word: SAME if they say the same ' +
  'thing (wording may differ), DIFFERENT otherwise.';

/** The judge's verdict on one turn's answers. */
export async function judgeAnswers(
  endpoints: CandidateEndpoints,
  judge: JudgeOptions,
  turn: { turnId: string; input: string; recorded: string; candidate: string },
  signal: AbortSignal,
): Promise<{ same: boolean; note?: string }> {
  const spec: AgentSpec = {
    name: 'tiller-eval-judge',
    instructions: judge.instructions ?? JUDGE_INSTRUCTIONS,
    model: judge.model,
    ...(judge.provider !== undefined && { provider: judge.provider }),
    tools: [],
    gates: {},
    hooks: { approveTool: false, onAgentStart: false, onToolStart: false, onToolEnd: false },
    maxModelCalls: 1,
    stream: false,
    searchAttributes: false,
  };
  const content = `Request:\n${turn.input}\n\nAnswer A:\n${turn.recorded}\n\nAnswer B:\n${turn.candidate}`;
  const answer = await callCandidate(
    endpoints,
    spec,
    [
      { role: 'system', content: spec.instructions },
      { role: 'user', content },
    ],
    { turnId: turn.turnId, call: 1, signal },
  );
  const text = (answer.message.content ?? '').trim();
  const same = /^\W*same\b/i.test(text);
  return { same, ...(!same && !/^\W*different\b/i.test(text) && { note: text.slice(0, 200) }) };
}
