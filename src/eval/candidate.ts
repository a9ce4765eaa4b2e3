/**
 * The candidate agent: the recorded spec with what changes (instructions, model, provider, API, tool
 * descriptions, gates), and one model call through the model activity's own code (`ask`, the checked
 * assistant message, reported or estimated usage) so providers and APIs behave as they do in a worker.
 */
import type OpenAI from 'openai';
import { ask, modelEndpoints, type ModelEndpoint } from '../activities/model';
import { assistantMessage, estimateUsage, type Tokens } from '../activities/model/answer';
import type { AgentSpec, AssistantMessage, ChatMessage, GateSpec, ModelApi } from '../core/spec';

/** What the candidate changes; anything not given stays as recorded. */
export interface Candidate {
  /** New instructions (the system prompt), or a function of the recorded ones. */
  instructions?: string | ((recorded: string) => string);
  model?: string;
  /** A provider from `providers` (absent: as recorded, then the default client). */
  provider?: string;
  api?: ModelApi;
  /** New descriptions, by tool name. */
  toolDescriptions?: Record<string, string>;
  /** The gates, by tool name, replacing the recorded ones. */
  gates?: Record<string, GateSpec>;
  /** Any other change, applied last. */
  spec?: (spec: AgentSpec) => AgentSpec;
}

/** Where the candidate's model calls go: the default client, and named providers. */
export interface CandidateEndpoints {
  client: OpenAI | ModelEndpoint;
  providers?: ReadonlyMap<string, OpenAI | ModelEndpoint>;
}

/** The candidate's spec for a recorded turn's. Pure. */
export function candidateSpec(recorded: AgentSpec, c: Candidate): AgentSpec {
  const instructions = typeof c.instructions === 'function' ? c.instructions(recorded.instructions) : c.instructions;
  const spec: AgentSpec = {
    ...recorded,
    ...(instructions !== undefined && { instructions }),
    ...(c.model !== undefined && { model: c.model }),
    ...(c.provider !== undefined && { provider: c.provider }),
    ...(c.api !== undefined && { api: c.api }),
    ...(c.gates !== undefined && { gates: c.gates }),
    tools: recorded.tools.map((t) =>
      c.toolDescriptions?.[t.name] !== undefined ? { ...t, description: c.toolDescriptions[t.name]! } : t,
    ),
  };
  return c.spec ? c.spec(spec) : spec;
}

/** One answer of the candidate's model. */
export interface CandidateAnswer {
  message: AssistantMessage;
  usage: Tokens;
  estimated: boolean;
  durationMs: number;
}

/** Calls the model `spec` names with `messages`, as the model activity would. */
export async function callCandidate(
  endpoints: CandidateEndpoints,
  spec: AgentSpec,
  messages: ChatMessage[],
  call: { turnId: string; call: number; signal: AbortSignal },
): Promise<CandidateAnswer> {
  const endpoint = modelEndpoints({
    client: endpoints.client,
    providers: endpoints.providers ?? new Map(),
  }).endpointFor(spec.provider);
  const prompt = {
    model: spec.model,
    ...(spec.provider !== undefined && { provider: spec.provider }),
    ...(spec.api !== undefined && { api: spec.api }),
    messages,
    tools: spec.tools,
    stream: spec.stream,
    turnId: call.turnId,
    call: call.call,
    ...(spec.modelSettings !== undefined && { settings: spec.modelSettings }),
  };
  const started = performance.now();
  const raw = await ask(endpoint, prompt, call.signal, () => undefined);
  const message = assistantMessage(raw, call.call);
  return {
    message,
    usage: raw.usage ?? estimateUsage(messages, spec.tools, message),
    estimated: !raw.usage,
    durationMs: Math.round(performance.now() - started),
  };
}
