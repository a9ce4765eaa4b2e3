/** `defineAgent`: instructions, the tools it may use, its approval policy and its own hooks. */
import type { z } from 'zod';
import { ModelSettings } from '../core/model-settings';
import { ModelRetryConfig } from '../core/model-retry-schema';
import { formatZodError } from '../core/schemas';
import { ANSWER_TOOL, type DurationLike, type GateSpec, type ModelApi, type ModelRetrySpec } from '../core/spec';
import { checkContextWindow } from './context-window';
import { checkGuardrails, type InputGuardrail, type OutputGuardrail } from './guardrails';
import { handoffsOf, handoffToolName, type HandoffEntry } from './handoffs';
import type { TillerHooks } from './hooks';

/** Another agent this agent may call as a tool; see {@link AgentDefinition.subAgents}. */
export interface SubAgentDefinition {
  /** Name of the registered agent to run. */
  agent: string;
  /** What the model reads about this tool: when to call it and what to ask. */
  description: string;
  /**
   * Also apply this (the calling) agent's approval gates, hooks and trust grants inside the sub-agent.
   * Default false: a sub-agent runs under its own agent's policy and hooks only.
   */
  inherit?: boolean;
}

/** What dynamic instructions are computed from (see {@link AgentDefinition.instructions}). */
export interface InstructionsContext {
  agent: string;
  /** The turn's input (the user's message). */
  input: string;
  turnId: string;
  /** The session the turn belongs to, if any. */
  sessionId?: string;
}

/** Instructions computed when a turn starts. */
export type InstructionsFn = (ctx: InstructionsContext) => string | Promise<string>;

/** Dynamic instructions may be at most this many characters. */
export const MAX_INSTRUCTIONS_CHARS = 100_000;

/** An agent ({@link defineAgent}): its instructions, the tools it may call, its approval policy and hooks. */
export interface AgentDefinition {
  name: string;
  /**
   * The system prompt: text, or a function of the turn's input and session, evaluated once when the turn
   * starts (in the `startTurn` activity) and recorded with the agent's spec, so replay never calls it again.
   * It must return a string of at most 100,000 characters; one that throws fails the attempt (retried).
   */
  instructions: string | InstructionsFn;
  /** Model name; falls back to `TILLER_MODEL`, then the worker's default. */
  model?: string;
  /**
   * The worker's named model provider to call (`createWorker({ providers })`, `TILLER_PROVIDERS`);
   * absent: the worker's default client (`openai`, else `OPENAI_BASE_URL` / `OPENAI_API_KEY`).
   */
  provider?: string;
  /**
   * The model API: `'chat'` (Chat Completions, what every OpenAI-compatible server speaks) or `'responses'`
   * (OpenAI's Responses API). Absent: the provider's `api`, else Chat Completions. Events, state and
   * approvals are the same whichever answers.
   */
  api?: ModelApi;
  /**
   * What a cut answer does (the model stopped at its token limit, `finish_reason: length`): `'fail'` (the
   * default) fails the turn saying so, `'accept'` keeps the cut text (or calls) as the answer. Raise
   * `modelSettings.maxTokens` to give it more room.
   */
  onTruncated?: 'fail' | 'accept';
  /**
   * How long a model call may take, retries included: `budget` (default 10 minutes) for the whole call,
   * `firstToken` (default 2 minutes) for one attempt's wait for its first chunk. Absent: the provider's
   * `retry`, else the defaults. See docs/models.md.
   */
  modelRetry?: ModelRetrySpec;
  /** Names of registered tools this agent may call; an MCP server's tool as `<server>__<tool>`. */
  tools: string[];
  /** MCP servers (configured with `createWorker({ mcpServers })`) whose every tool this agent may call. */
  mcp?: string[];
  /**
   * Tools that need a human decision. `true` = no deadline; or `{ timeout: '3 days', neverTrust: true }`.
   * The turn's starter may not approve its own call unless the gate says `allowSelfApproval: true`.
   * An MCP tool is gated by default unless its server marks it read-only (and not destructive);
   * `false` runs it without a gate.
   */
  approvals?: Record<string, boolean | GateSpec>;
  /**
   * Agents this agent may call as tools, by tool name: the model sees a tool with the parameters
   * `{ input: string }`; a call runs the agent as a child `agentTurn` and returns its final answer.
   * A sub-agent's tool name may be gated in `approvals` like any tool.
   */
  subAgents?: Record<string, SubAgentDefinition>;
  /** This agent's hooks (observers and interventions). Sub-agents do not inherit them (see `inherit`). */
  hooks?: TillerHooks[];
  /** Stop with a clear failure after this many model calls (default 20). */
  maxModelCalls?: number;
  /**
   * Sent on every model call of this agent as Chat Completions fields (`temperature`, `top_p`,
   * `max_tokens` / `max_completion_tokens`, `tool_choice`, `parallel_tool_calls`, `reasoning_effort`,
   * `seed`, `stop`; `extraBody` merged last). Validated by `defineAgent`; recorded in `AGENT_STARTED`.
   */
  modelSettings?: ModelSettings;
  /**
   * Structured output: the final answer must be JSON matching this zod schema. Sent as `response_format`
   * (`json_schema`, strict where the schema allows) on the agent's model calls; the answer is parsed and
   * validated, an invalid one goes back to the model with the error (`maxOutputRetries` times), then the
   * turn fails `InvalidOutput`. The turn's result and state carry the parsed value as `parsed`.
   */
  output?: z.ZodType;
  /**
   * Answer gate: a human approves the final answer before the turn completes — the same approval desk as a
   * gated tool (`true`, or a gate with deadline, approvers, reminders, escalation), shown as a call of the
   * pseudo-tool `final_answer` with arguments `{ text }`. Deny with a reason: the reason goes back to the
   * model, which revises its answer (asked again). An approver may edit `text` (not with `output`). A
   * gate that expires fails the turn.
   */
  approveAnswer?: boolean | GateSpec;
  /** Invalid structured answers sent back to the model before the turn fails (default 2, at most 10). */
  maxOutputRetries?: number;
  /** Stream model responses (default true). */
  stream?: boolean;
  /** Tokens one turn may use; the turn stops with a clear failure once exceeded. See also a session's `tokenBudget`. */
  turnTokenBudget?: number;
  /** Caps on tool arguments and results, in characters (defaults 64 KiB and 100 KiB). */
  maxToolArgChars?: number;
  maxToolResultChars?: number;
  /**
   * Checks on the turn's input, run as activities before (`blocking`, the default) or beside (`parallel`)
   * the first model call; one whose tripwire fires ends the turn `GuardrailTripped` (src/agents/guardrails.ts).
   */
  inputGuardrails?: InputGuardrail[];
  /** Checks on the final answer (after answer gates); a tripwire ends the turn `GuardrailTripped`. */
  outputGuardrails?: OutputGuardrail[];
  /**
   * Agents this one may give the turn to (`handoff({ agent, … })`, an agent, or its name): offered to the
   * model as `transfer_to_<agent>` tools; the new agent answers for the rest of the turn (src/agents/handoffs.ts).
   */
  handoffs?: HandoffEntry[];
  /**
   * The conversation's budget in tokens: before a model call whose prompt would pass it, the oldest
   * messages are dropped (`trim`, the default) or summarised by the model (`summarize`), whole turns and
   * tool-call pairs at a time; the system prompt and the turn's input are always kept. `tokens` is a whole
   * number from 256 to 100,000,000; any other key is refused.
   */
  contextWindow?: { tokens: number; strategy?: 'trim' | 'summarize' };
}

export const DEFAULT_MAX_TOOL_ARG_CHARS = 64 * 1024;
export const DEFAULT_MAX_TOOL_RESULT_CHARS = 100 * 1024;

export const DEFAULT_MAX_MODEL_CALLS = 20;
export { ANSWER_TOOL };
export const DEFAULT_MAX_OUTPUT_RETRIES = 2;
export const MAX_OUTPUT_RETRIES = 10;

/** Declares an agent, checking its definition (tool and sub-agent names, model settings); returns it. */
export function defineAgent(def: AgentDefinition): AgentDefinition {
  const subAgents = Object.keys(def.subAgents ?? {});
  for (const name of subAgents) {
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name))
      throw new Error(`agent ${def.name}: sub-agent tool name "${name}" must be 1-64 letters, digits, _ or -`);
    if (def.tools.includes(name))
      throw new Error(`agent ${def.name}: sub-agent ${name} has the name of one of its tools`);
  }
  for (const [tool] of Object.entries(def.approvals ?? {})) {
    if (!def.tools.includes(tool) && !subAgents.includes(tool) && !isOfMcpServer(tool, def.mcp))
      throw new Error(`agent ${def.name}: approval for ${tool}, which is not one of its tools`);
  }
  if (def.approveAnswer && def.tools.includes(ANSWER_TOOL))
    throw new Error(`agent ${def.name}: with approveAnswer, ${ANSWER_TOOL} may not be one of its tools`);
  const retries = def.maxOutputRetries;
  if (retries !== undefined && (!Number.isInteger(retries) || retries < 0 || retries > MAX_OUTPUT_RETRIES))
    throw new Error(`agent ${def.name}: maxOutputRetries must be an integer from 0 to ${MAX_OUTPUT_RETRIES}`);
  if (def.output !== undefined && typeof (def.output as { safeParse?: unknown }).safeParse !== 'function')
    throw new Error(`agent ${def.name}: output must be a zod schema`);
  checkGates(def);
  checkAgentOptions(def);
  if (def.api !== undefined && def.api !== 'chat' && def.api !== 'responses')
    throw new Error(`agent ${def.name}: api must be 'chat' or 'responses'`);
  if (def.onTruncated !== undefined && def.onTruncated !== 'fail' && def.onTruncated !== 'accept')
    throw new Error(`agent ${def.name}: onTruncated must be 'fail' or 'accept'`);
  const modelSettings = checkedModelSettings(def);
  if (modelSettings) return { ...def, modelSettings };
  return def;
}

/**
 * Throws a clear error for guardrails, handoffs or a context window the agent cannot have: `defineAgent`
 * checks them, and the worker again at start (an agent need not be built with `defineAgent`).
 */
export function checkAgentOptions(def: AgentDefinition): void {
  checkGuardrails(def.name, 'input', def.inputGuardrails);
  checkGuardrails(def.name, 'output', def.outputGuardrails);
  const own = [...(def.tools ?? []), ...Object.keys(def.subAgents ?? {})];
  const handoffTools = handoffsOf(def.name, def.handoffs).map((h) => h.toolName ?? handoffToolName(h.agent));
  const clash = handoffTools.find((t) => own.includes(t));
  if (clash) throw new Error(`agent ${def.name}: handoff tool ${clash} has the name of one of its tools`);
  checkContextWindow(def.name, def.contextWindow);
  const retry = def.modelRetry === undefined ? undefined : ModelRetryConfig.safeParse(def.modelRetry);
  if (retry && !retry.success) throw new Error(`agent ${def.name}: invalid modelRetry: ${formatZodError(retry.error)}`);
}

/** The agent's model settings, parsed; throws a clear error when they are invalid. */
export function checkedModelSettings(def: AgentDefinition): ModelSettings | undefined {
  if (def.modelSettings === undefined) return undefined;
  const parsed = ModelSettings.safeParse(def.modelSettings);
  if (!parsed.success) throw new Error(`agent ${def.name}: invalid modelSettings: ${formatZodError(parsed.error)}`);
  const choice = parsed.data.toolChoice;
  const named = choice !== undefined && !['auto', 'none', 'required'].includes(choice);
  if (
    named &&
    !def.tools.includes(choice) &&
    !Object.hasOwn(def.subAgents ?? {}, choice) &&
    !isOfMcpServer(choice, def.mcp)
  )
    throw new Error(`agent ${def.name}: modelSettings.toolChoice names ${choice}, which is not one of its tools`);
  return parsed.data;
}

/**
 * Throws a clear error for a gate whose escalation names no approver list: in plain JS a stage without
 * `approvers` would otherwise reach the turn, where a missing list used to mean anyone. (An empty list is
 * allowed: nobody may decide, the call can only expire.)
 */
export function checkGates(def: AgentDefinition): void {
  const gates = [
    ...Object.entries(def.approvals ?? {}),
    ...(def.approveAnswer ? [[ANSWER_TOOL, def.approveAnswer] as const] : []),
  ];
  for (const [tool, gate] of gates) {
    if (typeof gate !== 'object' || gate === null) continue;
    const escalate = (gate.onTimeout as { escalate?: { approvers?: unknown } } | undefined)?.escalate;
    if (gate.onTimeout === undefined || gate.onTimeout === 'deny') continue;
    const approvers = escalate?.approvers;
    if (!Array.isArray(approvers) || !approvers.every((a) => typeof a === 'string' && a.length > 0 && a.length <= 200))
      throw new Error(
        `agent ${def.name}: the escalation of ${tool} needs approvers, a list of names or group:<name> (an empty list means nobody)`,
      );
  }
}

export function gatesOf(def: AgentDefinition): Record<string, GateSpec> {
  return Object.fromEntries(
    Object.entries(def.approvals ?? {}).flatMap(([tool, g]) => (g === false ? [] : [[tool, g === true ? {} : g]])),
  );
}

/** `<server>__<tool>` for one of the agent's `mcp` servers (whose tools are only known at run time). */
function isOfMcpServer(tool: string, servers: readonly string[] = []): boolean {
  return servers.some((server) => tool.startsWith(`${server}__`));
}

export type { DurationLike };
