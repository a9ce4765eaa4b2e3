/**
 * All of Tiller's activities, built from their dependencies (no module-level state), so a test or a
 * custom worker injects its own model client, tools and hooks.
 */
import type OpenAI from 'openai';
import type { AgentDefinition } from '../agents/define';
import type { TillerHooks } from '../agents/hooks';
import type { ToolDefinition } from '../tools/define';
import { createAgentActivities } from './agents';
import { createModelActivities } from './model';
import { createToolActivities } from './tools';

export interface ActivityDeps {
  agents: readonly AgentDefinition[];
  tools: readonly ToolDefinition<any>[];
  /** Hooks for every agent, after each agent's own. */
  hooks?: readonly TillerHooks[];
  openai: OpenAI;
  defaultModel: string;
  searchAttributes: boolean;
}

export function createActivities(deps: ActivityDeps) {
  const agents = new Map(deps.agents.map((a) => [a.name, a]));
  const tools = new Map<string, ToolDefinition>(deps.tools.map((t) => [t.name, t as ToolDefinition]));
  const hooksFor = (agent: string) => [...(agents.get(agent)?.hooks ?? []), ...(deps.hooks ?? [])];
  return {
    ...createAgentActivities({
      agents,
      tools,
      hooksFor,
      defaultModel: deps.defaultModel,
      searchAttributes: deps.searchAttributes,
    }),
    ...createModelActivities({ client: deps.openai }),
    ...createToolActivities({ tools, hooksFor }),
  };
}

export type TillerActivities = ReturnType<typeof createActivities>;
