/**
 * Handoffs (`defineAgent({ handoffs })`): the model gives the conversation to another agent, which
 * answers the user itself for the rest of the turn — with its own instructions, tools, settings and
 * approval policy. Offered to the model as a tool (`transfer_to_<agent>`), like the OpenAI Agents SDK.
 */
import type { ChatMessage, HandoffContext } from '../core/spec';

export type { HandoffContext } from '../core/spec';

/** A handoff to `agent`, with how it is offered to the model and what happens when it is taken. */
export interface HandoffDefinition {
  /** The agent (registered on the worker) that takes the turn over. */
  agent: string;
  /** The tool's name (default `transfer_to_<agent>`). */
  toolName?: string;
  /** What the model reads about when to hand off (default: the target's name). */
  description?: string;
  /**
   * The conversation the new agent sees (default: all of it, its own instructions in place of the old
   * ones). Runs in an activity; the result is recorded (bounded like a model response). The system
   * prompt is always the new agent's.
   */
  inputFilter?: (messages: ChatMessage[]) => ChatMessage[] | Promise<ChatMessage[]>;
  /** Runs in that activity when the handoff happens; one that throws is recorded as a hook failure. */
  onHandoff?: (ctx: HandoffContext) => void | Promise<void>;
}

/** The `handoffs` entry for `agent` with options; an agent (or its name) alone is `handoff({ agent })`. */
export function handoff(def: HandoffDefinition): HandoffDefinition {
  return def;
}

/** A `handoffs` entry as given: a handoff, an agent definition, or an agent's name. */
export type HandoffEntry = HandoffDefinition | { name: string; instructions: unknown } | string;

const TOOL = /^[a-zA-Z0-9_-]{1,64}$/;
/** Handoffs one turn may take (each is a model call and an activity); past it the model reads why not. */
export const MAX_HANDOFFS = 8;

/** The default tool name: `transfer_to_` and the agent's name in tool-name characters. */
export function handoffToolName(agent: string): string {
  return `transfer_to_${agent.replace(/[^a-zA-Z0-9_-]/g, '_')}`.slice(0, 64);
}

/** Each entry as a handoff; throws a clear error for one that cannot be. */
export function handoffsOf(agent: string, entries: readonly HandoffEntry[] | undefined): HandoffDefinition[] {
  if (entries === undefined) return [];
  if (!Array.isArray(entries)) throw new Error(`agent ${agent}: handoffs must be a list`);
  const out = entries.map((e): HandoffDefinition => {
    if (typeof e === 'string') return { agent: e };
    if (e && typeof e === 'object' && 'agent' in e && typeof e.agent === 'string') return e;
    if (e && typeof e === 'object' && 'name' in e && typeof e.name === 'string') return { agent: e.name };
    throw new Error(`agent ${agent}: each handoff is an agent, an agent's name, or handoff({ agent })`);
  });
  const tools = new Set<string>();
  for (const h of out) {
    const tool = h.toolName ?? handoffToolName(h.agent);
    if (!TOOL.test(tool))
      throw new Error(`agent ${agent}: handoff tool name "${tool}" must be 1-64 letters, digits, _ or -`);
    if (tools.has(tool)) throw new Error(`agent ${agent}: two handoffs named ${tool}`);
    if (h.inputFilter !== undefined && typeof h.inputFilter !== 'function')
      throw new Error(`agent ${agent}: the handoff to ${h.agent} has an inputFilter that is not a function`);
    tools.add(tool);
  }
  return out;
}
