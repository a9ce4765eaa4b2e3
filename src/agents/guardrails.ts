/**
 * Guardrails (`defineAgent({ inputGuardrails, outputGuardrails })`): checks that run as activities on
 * the turn's input or its answer, each with a tripwire that ends the turn `GuardrailTripped`. A check is
 * a function (`run`) or an agent (`agent`: one model call with structured output, see
 * {@link guardrailAgent}); either way it stays in the worker: the spec holds its name and how it runs.
 */
import type { DurationLike } from '../core/spec';

/** What a guardrail is given. */
export interface GuardrailContext {
  agent: string;
  turnId: string;
  sessionId?: string;
  /** The user's input to the turn. */
  input: string;
  /** Output guardrails: the answer (`parsed` with structured output). */
  output?: { text: string; parsed?: unknown };
}

/** What a guardrail says: `tripwire: true` ends the turn; `info` is recorded with the run (bounded JSON). */
export interface GuardrailVerdict {
  tripwire: boolean;
  info?: unknown;
}

/** What every guardrail has: a name, and how long one attempt may take. */
interface GuardrailBase {
  /** Unique among the agent's guardrails of its kind: 1-64 letters, digits, `_` or `-`. */
  name: string;
  /**
   * Start-to-close timeout of one attempt (default 30 seconds; {@link guardrailAgent} sets 60): a guardrail
   * that hangs fails closed.
   */
  timeout?: DurationLike;
}

/** A guardrail that is a function, run in an activity on the worker. */
export interface FunctionGuardrail extends GuardrailBase {
  /**
   * The check. One that throws is retried (3 attempts), then counted as tripped: a guardrail fails closed.
   */
  run(ctx: GuardrailContext): GuardrailVerdict | Promise<GuardrailVerdict>;
  agent?: never;
}

/**
 * A guardrail that is an agent registered on the worker: one model call, in an activity, with the agent's
 * instructions, model, provider and settings, answering with structured output — the agent's `output`
 * schema, else `{ tripwire: boolean, reason: string }`. An answer that is not valid JSON of that schema,
 * a refusal, or a `tripwireOf` that throws fails closed (tripped, with the reason).
 */
export interface AgentGuardrail extends GuardrailBase {
  /** The name of the agent that checks (registered on the worker; it may have no tools, handoffs or sub-agents). */
  agent: string;
  /**
   * The verdict from the agent's parsed answer (default: its `tripwire` field, the whole answer as `info`).
   * Runs in the activity; its verdict is checked and bounded like a function guardrail's.
   */
  tripwireOf?: (output: unknown) => GuardrailVerdict | Promise<GuardrailVerdict>;
  run?: never;
}

/** A guardrail: a function or an agent, run as an activity, with a tripwire. */
export type GuardrailDefinition = FunctionGuardrail | AgentGuardrail;

/** How an input guardrail runs beside the first model call. */
export interface InputGuardrailMode {
  /**
   * `blocking` (default): the first model call waits for it, so nothing reaches the model before the
   * check passes. `parallel`: it runs beside the first model call (faster); no tool runs and no answer
   * is given until it has passed.
   */
  mode?: 'blocking' | 'parallel';
}

/** A guardrail on the turn's input (`defineAgent({ inputGuardrails })`). */
export type InputGuardrail = GuardrailDefinition & InputGuardrailMode;

/** A guardrail on the turn's answer (`defineAgent({ outputGuardrails })`). */
export type OutputGuardrail = GuardrailDefinition;

/** {@link guardrailAgent}'s options: the agent (or its name), and the guardrail's own. */
export interface GuardrailAgentOptions extends InputGuardrailMode {
  /** The agent that checks, or its name: it must be registered on the worker (checked at worker start). */
  agent: string | { name: string };
  /** The guardrail's name (default: the agent's). */
  name?: string;
  timeout?: DurationLike;
  /** The verdict from the agent's parsed answer; see `AgentGuardrail.tripwireOf`. */
  tripwireOf?: (output: unknown) => GuardrailVerdict | Promise<GuardrailVerdict>;
}

/**
 * A guardrail that is an agent, as the OpenAI Agents SDK offers: `inputGuardrails: [guardrailAgent({
 * agent: moderator })]`. See `AgentGuardrail`.
 */
export function guardrailAgent(opts: GuardrailAgentOptions): AgentGuardrail & InputGuardrailMode {
  const agent = typeof opts.agent === 'string' ? opts.agent : opts.agent?.name;
  return {
    name: opts.name ?? agent,
    agent,
    ...(opts.mode !== undefined && { mode: opts.mode }),
    timeout: opts.timeout ?? '60 seconds',
    ...(opts.tripwireOf !== undefined && { tripwireOf: opts.tripwireOf }),
  };
}

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
export const MAX_GUARDRAILS = 16;

/** Throws a clear error for a guardrail list `defineAgent` cannot take. */
export function checkGuardrails(agent: string, kind: 'input' | 'output', list: unknown): void {
  if (list === undefined) return;
  const what = `agent ${agent}: ${kind}Guardrails`;
  if (!Array.isArray(list)) throw new Error(`${what} must be a list`);
  if (list.length > MAX_GUARDRAILS) throw new Error(`${what}: at most ${MAX_GUARDRAILS}`);
  const seen = new Set<string>();
  for (const g of list as Partial<Record<'name' | 'run' | 'agent' | 'tripwireOf' | 'mode', unknown>>[]) {
    if (!g || typeof g.name !== 'string' || !NAME.test(g.name))
      throw new Error(`${what}: each needs a name of 1-64 letters, digits, _ or -`);
    if (seen.has(g.name)) throw new Error(`${what}: ${g.name} twice`);
    seen.add(g.name);
    if (g.agent !== undefined) {
      if (typeof g.agent !== 'string' || !g.agent)
        throw new Error(`${what}: ${g.name}: agent is the name of a registered agent`);
      if (g.run !== undefined) throw new Error(`${what}: ${g.name} has both a run function and an agent`);
      if (g.tripwireOf !== undefined && typeof g.tripwireOf !== 'function')
        throw new Error(`${what}: ${g.name}: tripwireOf must be a function`);
    } else if (typeof g.run !== 'function') throw new Error(`${what}: ${g.name} has no run function and no agent`);
    if (g.mode !== undefined && (kind === 'output' || (g.mode !== 'blocking' && g.mode !== 'parallel')))
      throw new Error(`${what}: ${g.name}: mode is 'blocking' or 'parallel', for input guardrails only`);
  }
}

/** What a guardrail agent may not have: it makes one model call, so nothing it would call could run. */
const NOT_FOR_GUARDRAIL_AGENTS = ['subAgents', 'handoffs', 'mcp', 'approvals', 'approveAnswer'] as const;

/**
 * Throws a clear error at worker start for a guardrail agent that is not registered, or that has what a
 * single model call cannot use (tools, sub-agents, handoffs, approvals, guardrails of its own).
 */
export function checkGuardrailAgents(
  agents: readonly {
    name: string;
    tools?: readonly string[];
    inputGuardrails?: readonly GuardrailDefinition[];
    outputGuardrails?: readonly GuardrailDefinition[];
  }[],
): void {
  const byName = new Map(agents.map((a) => [a.name, a as Record<string, unknown>]));
  for (const agent of agents) {
    for (const g of [...(agent.inputGuardrails ?? []), ...(agent.outputGuardrails ?? [])]) {
      if (g.agent === undefined) continue;
      const target = byName.get(g.agent);
      const what = `agent ${agent.name}: guardrail ${g.name} runs agent ${g.agent}`;
      if (!target) throw new Error(`${what}, which is not registered on this worker`);
      const has = (key: string) => {
        const v = target[key];
        return Array.isArray(v) ? v.length > 0 : v !== undefined && v !== false && !isEmptyRecord(v);
      };
      const extra = ['tools', 'inputGuardrails', 'outputGuardrails', ...NOT_FOR_GUARDRAIL_AGENTS].filter(has);
      if (extra.length)
        throw new Error(
          `${what}, which has ${extra.join(', ')}: a guardrail agent makes one model call and calls nothing`,
        );
    }
  }
}

const isEmptyRecord = (v: unknown) => typeof v === 'object' && v !== null && Object.keys(v).length === 0;
