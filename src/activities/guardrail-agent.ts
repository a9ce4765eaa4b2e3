/**
 * A guardrail that is an agent (`guardrailAgent({ agent })`): one model call, inside the `runGuardrail`
 * activity, with the agent's instructions, model, provider and settings, answering with structured output
 * (its `output` schema, else {@link GuardrailAgentVerdict}). Its parsed answer is the verdict — its
 * `tripwire`, or what the guardrail's `tripwireOf` makes of it. An unknown agent, an answer that is too
 * big or not JSON of the schema, a refusal, or a `tripwireOf` that throws is a non-retryable failure,
 * which the workflow counts as tripped (fail closed) with the reason; a failed call (429, 5xx) is retried.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { z } from 'zod';
import type { AgentDefinition } from '../agents/define';
import type { AgentGuardrail } from '../agents/guardrails';
import { BOUNDS, clip } from '../core/bounds';
import { FailureType } from '../core/failures';
import type { GuardrailRequest, ModelResponse } from '../core/spec';
import { outputSpecOf, resolveInstructions } from './agent-spec';
import { ask, checkOutput, type ModelEndpoints } from './model';
import { assistantMessage, estimateUsage, refusalOf, type RawAnswer } from './model/answer';
import { redactedFailure } from './model/errors';
import type { Prompt } from './model/prompt';

/** What a guardrail agent answers when it has no `output` schema of its own. */
export const GuardrailAgentVerdict = z.object({
  tripwire: z.boolean(),
  /** Why, in a sentence: recorded with the run as its `info`. */
  reason: z.string(),
});

/** What running a guardrail agent needs from the worker. */
export interface GuardrailAgentDeps {
  endpoints: ModelEndpoints;
  /** The model of an agent that names none. */
  model: string;
}

const invalid = (message: string) =>
  ApplicationFailure.create({
    type: 'InvalidGuardrailVerdict',
    message: clip(message, BOUNDS.text),
    nonRetryable: true,
  });

/** What the agent reads: the input, or the input and the answer to check. */
function subject(req: GuardrailRequest): string {
  if (req.kind === 'input' || !req.output) return req.input;
  return `The user's message:\n${req.input}\n\nThe answer to check:\n${req.output.text}`;
}

async function promptOf(def: AgentDefinition, req: GuardrailRequest, defaultModel: string): Promise<Prompt> {
  const instructions = await resolveInstructions(def, {
    agent: def.name,
    input: req.input,
    turnId: req.turnId,
    ...(req.sessionId !== undefined && { sessionId: req.sessionId }),
  });
  const output = outputSpecOf({ ...def, output: def.output ?? GuardrailAgentVerdict })!;
  return {
    model: def.model ?? defaultModel,
    ...(def.provider !== undefined && { provider: def.provider }),
    ...(def.api !== undefined && { api: def.api }),
    stream: false,
    turnId: req.turnId,
    call: 0,
    ...(def.modelSettings !== undefined && { settings: def.modelSettings }),
    output: { ...output, agent: def.name },
    messages: [
      { role: 'system', content: instructions },
      { role: 'user', content: subject(req) },
    ],
    tools: [],
  };
}

/** Runs the guardrail's agent: the verdict it gave (unchecked, as a function guardrail's), and its tokens. */
export async function askGuardrailAgent(
  g: AgentGuardrail,
  req: GuardrailRequest,
  agents: ReadonlyMap<string, AgentDefinition>,
  deps: GuardrailAgentDeps,
): Promise<{ verdict: unknown; usage: ModelResponse['usage'] }> {
  const def = agents.get(g.agent);
  if (!def)
    throw ApplicationFailure.create({
      type: FailureType.UnknownAgent,
      message: `guardrail ${req.name} runs agent ${g.agent}, which is not on this worker`,
      nonRetryable: true,
    });
  const ctx = Context.current();
  const prompt = await promptOf(def, req, deps.model);
  let raw: RawAnswer;
  try {
    raw = await ask(deps.endpoints.endpointFor(def.provider), prompt, ctx.cancellationSignal, () => undefined);
  } catch (err) {
    if (ctx.cancellationSignal.aborted) throw err;
    throw redactedFailure(err, deps.endpoints.secrets);
  }
  const what = `guardrail agent ${def.name}`;
  const refusal = refusalOf(raw);
  if (refusal !== undefined || raw.finishReason === 'content_filter')
    throw invalid(`${what} refused to answer: ${clip(refusal ?? 'content_filter', 500)}`);
  if (typeof raw.content === 'string' && raw.content.length > BOUNDS.long)
    throw invalid(`${what} answered ${raw.content.length} characters, more than ${BOUNDS.long}`);
  // Tool calls are dropped: it was offered none.
  const message = assistantMessage({ ...raw, calls: [] }, 0);
  const usage = raw.usage ?? estimateUsage(prompt.messages, [], message);
  const checked = checkOutput(message.content, def.output ?? GuardrailAgentVerdict);
  if (!checked.ok) throw invalid(`${what} did not answer with its verdict: ${checked.error}`);
  if (!g.tripwireOf) {
    const { tripwire } = (checked.value ?? {}) as { tripwire?: unknown };
    if (typeof tripwire !== 'boolean')
      throw invalid(`${what}'s answer has no boolean tripwire (give the guardrail a tripwireOf)`);
    return { verdict: { tripwire, info: checked.value }, usage };
  }
  try {
    return { verdict: await g.tripwireOf(checked.value), usage };
  } catch (err) {
    throw invalid(`guardrail ${req.name}: its tripwireOf failed: ${(err as Error)?.message ?? String(err)}`);
  }
}
