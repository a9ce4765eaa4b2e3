/**
 * `runGuardrail`: one of an agent's guardrails on the turn's input or answer — its function, or its agent's
 * model call (./guardrail-agent.ts). Its verdict is checked
 * and bounded before it is recorded; a guardrail that throws is retried by the activity's policy and
 * then fails closed in the workflow.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { AgentDefinition } from '../agents/define';
import { checkGuardrailAgents, type GuardrailDefinition } from '../agents/guardrails';
import { BOUNDS, clip, deeperThan } from '../core/bounds';
import { FailureType } from '../core/failures';
import type { GuardrailRequest, GuardrailResponse, ModelResponse } from '../core/spec';
import { askGuardrailAgent, type GuardrailAgentDeps } from './guardrail-agent';

/** A guardrail's `info` as JSON is at most this many characters; more is recorded as a note saying so. */
export const MAX_GUARDRAIL_INFO_CHARS = BOUNDS.text;

/** `info` as it may be recorded: plain JSON, shallow and small, or a note saying why not. */
function boundedInfo(info: unknown): unknown {
  if (info === undefined) return undefined;
  if (deeperThan(info, BOUNDS.jsonDepth)) return `[info nested deeper than ${BOUNDS.jsonDepth} levels]`;
  let text: string | undefined;
  try {
    text = JSON.stringify(info);
  } catch {
    return '[info that is not JSON]';
  }
  if (text === undefined) return undefined;
  if (text.length > MAX_GUARDRAIL_INFO_CHARS) return `[${text.length} characters of info]`;
  return JSON.parse(text);
}

/**
 * Throws at worker start when a guardrail runs an agent that is not registered, or one with what a single
 * model call cannot use.
 */
export function createGuardrailActivities(agents: ReadonlyMap<string, AgentDefinition>, model: GuardrailAgentDeps) {
  checkGuardrailAgents([...agents.values()]);
  return {
    async runGuardrail(req: GuardrailRequest): Promise<GuardrailResponse> {
      const def = agents.get(req.agent);
      const list: readonly GuardrailDefinition[] =
        (req.kind === 'input' ? def?.inputGuardrails : def?.outputGuardrails) ?? [];
      const guardrail = list.find((g) => g.name === req.name);
      if (!guardrail)
        throw ApplicationFailure.create({
          type: FailureType.UnknownAgent,
          message: `agent ${req.agent} has no ${req.kind} guardrail ${req.name} on this worker`,
          nonRetryable: true,
        });
      const started = performance.now();
      // A guardrail that never settles must not hold the activity (nor the worker's shutdown) past its
      // timeout: the attempt ends when Temporal cancels it.
      const ran: Promise<{ verdict: unknown; usage?: ModelResponse['usage'] }> =
        guardrail.agent !== undefined
          ? askGuardrailAgent(guardrail, req, agents, model)
          : Promise.resolve(
              guardrail.run({
                agent: req.agent,
                turnId: req.turnId,
                ...(req.sessionId !== undefined && { sessionId: req.sessionId }),
                input: req.input,
                ...(req.output && { output: req.output }),
              }),
            ).then((verdict) => ({ verdict }));
      const { verdict, usage } = await Promise.race([ran, Context.current().cancelled]);
      const durationMs = Math.round((performance.now() - started) * 100) / 100;
      const { tripwire, info } = (verdict ?? {}) as { tripwire?: unknown; info?: unknown };
      if (typeof tripwire !== 'boolean')
        throw ApplicationFailure.create({
          type: 'InvalidGuardrailVerdict',
          message: `guardrail ${req.name} returned ${clip(String(JSON.stringify(verdict) ?? verdict), 200)}, not { tripwire: boolean, info? }`,
          nonRetryable: true,
        });
      const bounded = boundedInfo(info);
      return {
        tripwire,
        durationMs,
        ...(bounded !== undefined && { info: bounded }),
        ...(guardrail.agent !== undefined && { agent: guardrail.agent }),
        ...(usage && { usage }),
      };
    },
  };
}
