/** `defineAgent`: instructions, the tools it may use, its approval policy and its own hooks. */
import type { DurationLike, GateSpec } from '../core/spec';
import type { TillerHooks } from './hooks';

export interface AgentDefinition {
  name: string;
  instructions: string;
  /** Model name; falls back to `TILLER_MODEL`, then the worker's default. */
  model?: string;
  /** Names of registered tools this agent may call. */
  tools: string[];
  /**
   * Tools that need a human decision. `true` = no deadline; or `{ timeout: '3 days', neverTrust: true }`.
   */
  approvals?: Record<string, true | GateSpec>;
  /** This agent's hooks (observers and interventions). Sub-agents do not inherit them. */
  hooks?: TillerHooks[];
  /** Stop with a clear failure after this many model calls (default 20). */
  maxModelCalls?: number;
  /** Stream model responses (default true). */
  stream?: boolean;
  /** Tokens one turn may use; the turn stops with a clear failure once exceeded. See also a session's `tokenBudget`. */
  turnTokenBudget?: number;
  /** Caps on tool arguments and results, in characters (defaults 64 KiB and 100 KiB). */
  maxToolArgChars?: number;
  maxToolResultChars?: number;
}

export const DEFAULT_MAX_TOOL_ARG_CHARS = 64 * 1024;
export const DEFAULT_MAX_TOOL_RESULT_CHARS = 100 * 1024;

export const DEFAULT_MAX_MODEL_CALLS = 20;

export function defineAgent(def: AgentDefinition): AgentDefinition {
  for (const [tool] of Object.entries(def.approvals ?? {})) {
    if (!def.tools.includes(tool))
      throw new Error(`agent ${def.name}: approval for ${tool}, which is not one of its tools`);
  }
  return def;
}

export function gatesOf(def: AgentDefinition): Record<string, GateSpec> {
  return Object.fromEntries(Object.entries(def.approvals ?? {}).map(([tool, g]) => [tool, g === true ? {} : g]));
}

export type { DurationLike };
