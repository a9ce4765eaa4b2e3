/**
 * Guardrails (`defineAgent({ inputGuardrails, outputGuardrails })`): checks that run as activities on
 * the turn's input or its answer, each with a tripwire that ends the turn `GuardrailTripped`. The
 * function stays in the worker; the spec holds its name and how it runs.
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

/** A guardrail: a named check run as an activity, with a tripwire. */
export interface GuardrailDefinition {
  /** Unique among the agent's guardrails of its kind: 1-64 letters, digits, `_` or `-`. */
  name: string;
  /**
   * The check, run in an activity on the worker. One that throws is retried (3 attempts), then counted as
   * tripped: a guardrail fails closed.
   */
  run(ctx: GuardrailContext): GuardrailVerdict | Promise<GuardrailVerdict>;
  /** Start-to-close timeout of one attempt (default 30 seconds): a guardrail that hangs fails closed. */
  timeout?: DurationLike;
}

/** A guardrail on the turn's input (`defineAgent({ inputGuardrails })`). */
export interface InputGuardrail extends GuardrailDefinition {
  /**
   * `blocking` (default): the first model call waits for it, so nothing reaches the model before the
   * check passes. `parallel`: it runs beside the first model call (faster); no tool runs and no answer
   * is given until it has passed.
   */
  mode?: 'blocking' | 'parallel';
}

/** A guardrail on the turn's answer (`defineAgent({ outputGuardrails })`). */
export type OutputGuardrail = GuardrailDefinition;

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
export const MAX_GUARDRAILS = 16;

/** Throws a clear error for a guardrail list `defineAgent` cannot take. */
export function checkGuardrails(agent: string, kind: 'input' | 'output', list: unknown): void {
  if (list === undefined) return;
  const what = `agent ${agent}: ${kind}Guardrails`;
  if (!Array.isArray(list)) throw new Error(`${what} must be a list`);
  if (list.length > MAX_GUARDRAILS) throw new Error(`${what}: at most ${MAX_GUARDRAILS}`);
  const seen = new Set<string>();
  for (const g of list as Partial<InputGuardrail>[]) {
    if (!g || typeof g.name !== 'string' || !NAME.test(g.name))
      throw new Error(`${what}: each needs a name of 1-64 letters, digits, _ or -`);
    if (seen.has(g.name)) throw new Error(`${what}: ${g.name} twice`);
    seen.add(g.name);
    if (typeof g.run !== 'function') throw new Error(`${what}: ${g.name} has no run function`);
    if (g.mode !== undefined && (kind === 'output' || (g.mode !== 'blocking' && g.mode !== 'parallel')))
      throw new Error(`${what}: ${g.name}: mode is 'blocking' or 'parallel', for input guardrails only`);
  }
}
