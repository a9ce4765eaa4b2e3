/**
 * The agent-spec compiler: an agent's definition (with the worker's tools, sub-agents, handoffs, MCP
 * servers and guardrails) into the plain `AgentSpec` a turn runs on, which `startTurn` (./agents.ts)
 * records in history, and the checks a worker runs on its agents at setup use (src/worker/check-agents.ts).
 */
import { ApplicationFailure } from '@temporalio/activity';
import { z } from 'zod';
import {
  DEFAULT_MAX_MODEL_CALLS,
  DEFAULT_MAX_OUTPUT_RETRIES,
  DEFAULT_MAX_TOOL_ARG_CHARS,
  DEFAULT_MAX_TOOL_RESULT_CHARS,
  gatesOf,
  MAX_INSTRUCTIONS_CHARS,
  type AgentDefinition,
} from '../agents/define';
import type { InputGuardrail } from '../agents/guardrails';
import { handoffsOf, handoffToolName } from '../agents/handoffs';
import type { TillerHooks } from '../agents/hooks';
import { BOUNDS, clip } from '../core/bounds';
import { FailureType } from '../core/failures';
import type { AgentSpec, GuardrailSpec, ModelRetrySpec, OutputSpec, StartTurnRequest, ToolSpec } from '../core/spec';
import { withMcpTools } from '../mcp/activity';
import type { McpPool } from '../mcp/pool';
import { subAgentToolSpec } from '../core/subagents';
import { toolParameters, type ToolDefinition } from '../tools/define';

export interface AgentActivityDeps {
  agents: ReadonlyMap<string, AgentDefinition>;
  tools: ReadonlyMap<string, ToolDefinition>;
  hooksFor(agent: string): readonly TillerHooks[];
  /** The model of an agent that names none (the option `model`). */
  model: string;
  searchAttributes: boolean;
  decideSignal?: boolean;
  verifiedApprovers?: boolean;
  /** The worker's MCP clients, when it has `mcpServers`. */
  mcp?: McpPool;
  /** A provider's `retry` (undefined: the default client's, or none), for agents without `modelRetry`. */
  modelRetryFor?(provider: string | undefined): ModelRetrySpec | undefined;
}

export function buildAgentSpec(def: AgentDefinition, deps: AgentActivityDeps): AgentSpec {
  const hooks = deps.hooksFor(def.name);
  // MCP tools (`<server>__<tool>`) are listed from their servers, by `withMcpTools`.
  const workerTools = def.tools.filter((name) => !deps.mcp?.owns(name));
  return {
    name: def.name,
    // Dynamic instructions are computed by `startTurn` (resolveInstructions) and set on the spec there.
    instructions: typeof def.instructions === 'string' ? def.instructions : '',
    model: def.model ?? deps.model,
    ...(def.provider !== undefined && { provider: def.provider }),
    ...(def.api !== undefined && { api: def.api }),
    ...(def.onTruncated !== undefined && { onTruncated: def.onTruncated }),
    ...modelRetryOf(def, deps),
    tools: workerTools.map((name) => {
      const tool = deps.tools.get(name);
      if (!tool) throw new Error(`agent ${def.name} uses tool ${name}, which is not registered`);
      return {
        name,
        description: tool.description,
        parameters: toolParameters(tool),
        ...(tool.timeout !== undefined && { timeout: tool.timeout }),
        ...(tool.heartbeatTimeout !== undefined && { heartbeatTimeout: tool.heartbeatTimeout }),
        ...(tool.preview !== undefined && { preview: true }),
        ...(tool.local !== undefined && { local: tool.local }),
        ...(tool.readOnly && { readOnly: true }),
      };
    }),
    gates: gatesOf(def),
    hooks: {
      approveTool: hooks.some((h) => h.approveTool),
      ...(hooks.some((h) => h.approveAnswer) && { approveAnswer: true }),
      onAgentStart: hooks.some((h) => h.onAgentStart),
      onToolStart: hooks.some((h) => h.onToolStart),
      onToolEnd: hooks.some((h) => h.onToolEnd),
      onApprovalPending: hooks.some((h) => h.onApprovalPending),
      onApprovalResolved: hooks.some((h) => h.onApprovalResolved),
    },
    maxModelCalls: def.maxModelCalls ?? DEFAULT_MAX_MODEL_CALLS,
    limits: {
      ...(def.turnTokenBudget !== undefined && { turnTokens: def.turnTokenBudget }),
      maxToolArgChars: def.maxToolArgChars ?? DEFAULT_MAX_TOOL_ARG_CHARS,
      maxToolResultChars: def.maxToolResultChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS,
    },
    stream: def.stream ?? true,
    ...guardrailSpecs(def),
    ...(def.contextWindow && {
      contextWindow: { tokens: def.contextWindow.tokens, strategy: def.contextWindow.strategy ?? 'trim' },
    }),
    ...(def.modelSettings !== undefined && { modelSettings: def.modelSettings }),
    ...(def.output !== undefined && { output: outputSpecOf(def) }),
    ...(def.approveAnswer && { answerGate: def.approveAnswer === true ? {} : def.approveAnswer }),
    searchAttributes: deps.searchAttributes,
    ...(deps.decideSignal === false && { decideSignal: false }),
    ...(deps.verifiedApprovers === true && { verifiedApprovers: true }),
  };
}

/** The agent's `modelRetry`, else its provider's `retry`; nothing when neither says (the workflow's defaults). */
function modelRetryOf(def: AgentDefinition, deps: AgentActivityDeps): { modelRetry?: ModelRetrySpec } {
  const retry = def.modelRetry ?? deps.modelRetryFor?.(def.provider);
  return retry ? { modelRetry: retry } : {};
}

/** An agent's spec: its tools, sub-agents, handoffs and MCP tools (instructions as written). */
export async function specOf(def: AgentDefinition, deps: AgentActivityDeps): Promise<AgentSpec> {
  const spec = withHandoffs(withSubAgents(buildAgentSpec(def, deps), def, deps), def, deps);
  return mcpOptOuts(await withMcpTools(spec, def, deps.mcp), deps.mcp);
}

/** The spec a turn runs on: `specOf`, with dynamic instructions computed for this turn. */
export async function resolvedSpec(
  def: AgentDefinition,
  req: StartTurnRequest,
  deps: AgentActivityDeps,
): Promise<AgentSpec> {
  const own = await specOf(def, deps);
  if (typeof def.instructions === 'function') own.instructions = await resolveInstructions(def, req);
  return own;
}

/** The agent's guardrails as the workflow knows them: names and how they run (the functions stay here). */
function guardrailSpecs(def: AgentDefinition): Pick<AgentSpec, 'guardrails'> {
  const spec = (g: InputGuardrail): GuardrailSpec => ({
    name: g.name,
    ...(g.mode !== undefined && { mode: g.mode }),
    ...(g.timeout !== undefined && { timeout: g.timeout }),
  });
  const input = (def.inputGuardrails ?? []).map(spec);
  const output = (def.outputGuardrails ?? []).map(spec);
  if (!input.length && !output.length) return {};
  return { guardrails: { ...(input.length && { input }), ...(output.length && { output }) } };
}

/** The agent's spec with the tools through which it hands the turn to other agents. */
export function withHandoffs(spec: AgentSpec, def: AgentDefinition, deps: AgentActivityDeps): AgentSpec {
  const tools: ToolSpec[] = handoffsOf(def.name, def.handoffs).map((h) => {
    if (!deps.agents.has(h.agent))
      throw new Error(`agent ${def.name} hands off to agent ${h.agent}, which is not registered`);
    return {
      name: h.toolName ?? handoffToolName(h.agent),
      description: h.description ?? `Hand the conversation to ${h.agent}, who answers the user from here on.`,
      parameters: {
        type: 'object',
        properties: { reason: { type: 'string', description: 'Why, in a few words (optional).' } },
        additionalProperties: false,
      },
      handoff: { agent: h.agent },
    };
  });
  return tools.length ? { ...spec, tools: [...spec.tools, ...tools] } : spec;
}

/** MCP tools their server's `runAsActivity` lists stay regular activities (`local: false`), read-only or not. */
export function mcpOptOuts(spec: AgentSpec, mcp: McpPool | undefined): AgentSpec {
  const optedOut = (t: ToolSpec) => !!t.mcp && !!mcp?.servers.get(t.mcp.server)?.runAsActivity?.includes(t.mcp.tool);
  if (!spec.tools.some(optedOut)) return spec;
  return { ...spec, tools: spec.tools.map((t) => (optedOut(t) ? { ...t, local: false } : t)) };
}

/** The agent's spec with the tools through which it calls its sub-agents (each runs as a child turn). */
export function withSubAgents(spec: AgentSpec, def: AgentDefinition, deps: AgentActivityDeps): AgentSpec {
  const tools: ToolSpec[] = Object.entries(def.subAgents ?? {}).map(([name, sub]) => {
    if (!deps.agents.has(sub.agent))
      throw new Error(`agent ${def.name} has sub-agent ${name} = agent ${sub.agent}, which is not registered`);
    return subAgentToolSpec(name, sub);
  });
  return tools.length ? { ...spec, tools: [...spec.tools, ...tools] } : spec;
}

/** The output spec of an agent with `output`: its zod schema as JSON Schema, strict where OpenAI's strict mode allows. */
export function outputSpecOf(def: AgentDefinition): OutputSpec | undefined {
  if (!def.output) return undefined;
  let schema: Record<string, unknown>;
  try {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(def.output, { target: 'draft-7', io: 'input' }) as Record<
      string,
      unknown
    >;
    schema = closedObjects(rest);
  } catch (err) {
    throw new Error(`agent ${def.name}: its output schema has no JSON Schema: ${(err as Error).message}`, {
      cause: err,
    });
  }
  return {
    name: `${def.name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 50)}_output`,
    schema,
    strict: strictCompatible(schema),
    maxRetries: def.maxOutputRetries ?? DEFAULT_MAX_OUTPUT_RETRIES,
  };
}

/**
 * The schema with `additionalProperties: false` on every object that does not say (zod's input schema of
 * a plain object leaves it open because parsing strips extra keys; the model should send none).
 */
function closedObjects(schema: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(schema);
  const stack: unknown[] = [copy];
  while (stack.length) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    const n = node as Record<string, unknown>;
    if (n.type === 'object' && n.properties && !('additionalProperties' in n)) n.additionalProperties = false;
    for (const child of Object.values(n)) if (child && typeof child === 'object') stack.push(child);
  }
  return copy;
}

/** OpenAI's strict mode: an object at the root, every object lists all its properties as required and allows no others. */
function strictCompatible(schema: Record<string, unknown>): boolean {
  if (schema.type !== 'object') return false;
  const stack: unknown[] = [schema];
  while (stack.length) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    const n = node as Record<string, unknown>;
    if (n.type === 'object' || n.properties) {
      const props = Object.keys((n.properties as object | undefined) ?? {});
      const required = new Set(Array.isArray(n.required) ? n.required : []);
      if (n.additionalProperties !== false || props.some((p) => !required.has(p))) return false;
    }
    for (const child of Object.values(n)) if (child && typeof child === 'object') stack.push(child);
  }
  return true;
}

/** An agent's dynamic instructions for this turn: a string of at most MAX_INSTRUCTIONS_CHARS, else a clear failure. */
export async function resolveInstructions(def: AgentDefinition, req: StartTurnRequest): Promise<string> {
  if (typeof def.instructions === 'string') return def.instructions;
  let text: unknown;
  try {
    text = await def.instructions({
      agent: def.name,
      input: req.input,
      turnId: req.turnId,
      ...(req.sessionId !== undefined && { sessionId: req.sessionId }),
    });
  } catch (err) {
    throw ApplicationFailure.create({
      type: FailureType.InvalidInstructions,
      message: `agent ${def.name}: its instructions function failed: ${clip((err as Error)?.message ?? String(err), BOUNDS.text)}`,
    });
  }
  if (typeof text !== 'string' || text.length > MAX_INSTRUCTIONS_CHARS)
    throw ApplicationFailure.create({
      type: FailureType.InvalidInstructions,
      message: `agent ${def.name}: its instructions function must return a string of at most ${MAX_INSTRUCTIONS_CHARS} characters`,
      nonRetryable: true,
    });
  return text;
}
