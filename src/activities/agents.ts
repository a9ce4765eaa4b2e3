/**
 * `startTurn`: resolves an agent by name into the plain `AgentSpec` the workflow runs on (recorded in
 * history, so replay never depends on the worker's current configuration) and fires `onAgentStart`.
 */
import { ApplicationFailure } from '@temporalio/activity';
import {
  DEFAULT_MAX_MODEL_CALLS,
  DEFAULT_MAX_TOOL_ARG_CHARS,
  DEFAULT_MAX_TOOL_RESULT_CHARS,
  gatesOf,
  type AgentDefinition,
} from '../agents/define';
import type { TillerHooks } from '../agents/hooks';
import type { AgentSpec, StartTurnRequest, StartTurnResponse } from '../core/spec';
import { toolParameters, type ToolDefinition } from '../tools/define';
import { runHooks } from './tools';

export interface AgentActivityDeps {
  agents: ReadonlyMap<string, AgentDefinition>;
  tools: ReadonlyMap<string, ToolDefinition>;
  hooksFor(agent: string): readonly TillerHooks[];
  defaultModel: string;
  searchAttributes: boolean;
}

export function buildAgentSpec(def: AgentDefinition, deps: AgentActivityDeps): AgentSpec {
  const hooks = deps.hooksFor(def.name);
  return {
    name: def.name,
    instructions: def.instructions,
    model: def.model ?? deps.defaultModel,
    tools: def.tools.map((name) => {
      const tool = deps.tools.get(name);
      if (!tool) throw new Error(`agent ${def.name} uses tool ${name}, which is not registered`);
      return {
        name,
        description: tool.description,
        parameters: toolParameters(tool),
        ...(tool.timeout !== undefined && { timeout: tool.timeout }),
        ...(tool.heartbeatTimeout !== undefined && { heartbeatTimeout: tool.heartbeatTimeout }),
        ...(tool.preview !== undefined && { preview: true }),
      };
    }),
    gates: gatesOf(def),
    hooks: {
      approveTool: hooks.some((h) => h.approveTool),
      onAgentStart: hooks.some((h) => h.onAgentStart),
      onToolStart: hooks.some((h) => h.onToolStart),
      onToolEnd: hooks.some((h) => h.onToolEnd),
      onApprovalPending: hooks.some((h) => h.onApprovalPending),
    },
    maxModelCalls: def.maxModelCalls ?? DEFAULT_MAX_MODEL_CALLS,
    limits: {
      ...(def.turnTokenBudget !== undefined && { turnTokens: def.turnTokenBudget }),
      maxToolArgChars: def.maxToolArgChars ?? DEFAULT_MAX_TOOL_ARG_CHARS,
      maxToolResultChars: def.maxToolResultChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS,
    },
    stream: def.stream ?? true,
    searchAttributes: deps.searchAttributes,
  };
}

export function createAgentActivities(deps: AgentActivityDeps) {
  return {
    async startTurn(req: StartTurnRequest): Promise<StartTurnResponse> {
      const def = deps.agents.get(req.agent);
      if (!def) {
        throw ApplicationFailure.create({
          type: 'UnknownAgent',
          message: `unknown agent "${req.agent}"; this worker serves: ${[...deps.agents.keys()].join(', ') || '(none)'}`,
          nonRetryable: true,
        });
      }
      const spec = buildAgentSpec(def, deps);
      const hookFailures = await runHooks(deps.hooksFor(def.name), 'onAgentStart', {
        agent: def.name,
        input: req.input,
        turnId: req.turnId,
        ...(req.sessionId !== undefined && { sessionId: req.sessionId }),
      });
      return { spec, hookFailures };
    },
  };
}
