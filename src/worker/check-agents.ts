/**
 * The agents a worker is given, checked against everything else it is given before it starts: a
 * mistake in a definition fails `createTillerPlugin`, not the first turn that meets it.
 */
import { outputSpecOf } from '../activities/agent-spec';
import { checkedModelSettings, checkGates, type AgentDefinition } from '../agents/define';
import { handoffsOf } from '../agents/handoffs';
import type { McpPool } from '../mcp/pool';
import type { ToolDefinition } from '../tools/define';

/**
 * Agents may only name registered tools, agents and providers, and configured MCP servers (MCP tools
 * themselves are checked when a turn starts: their servers list them then).
 */
export function checkAgents(
  agents: readonly AgentDefinition[],
  tools: readonly ToolDefinition<any>[],
  providers: ReadonlyMap<string, unknown>,
  mcp?: McpPool,
): void {
  const toolNames = new Set(tools.map((t) => t.name));
  for (const agent of agents) {
    if (agent.provider !== undefined && !providers.has(agent.provider))
      throw new Error(
        `agent ${agent.name} uses model provider ${agent.provider}, which is not configured ` +
          `(providers: ${[...providers.keys()].join(', ') || 'none'})`,
      );
    const names = new Set(agents.map((a) => a.name));
    const targets = handoffsOf(agent.name, agent.handoffs).filter((h) => !names.has(h.agent));
    if (targets.length)
      throw new Error(
        `agent ${agent.name} hands off to unregistered agents: ${targets.map((h) => h.agent).join(', ')}`,
      );
    checkedModelSettings(agent); // also for agents built without defineAgent
    checkGates(agent);
    outputSpecOf(agent); // an output schema with no JSON Schema fails here, not at the first turn
    const missing = agent.tools.filter((t) => !toolNames.has(t) && !mcp?.owns(t));
    if (missing.length) throw new Error(`agent ${agent.name} uses unregistered tools: ${missing.join(', ')}`);
    const servers = (agent.mcp ?? []).filter((s) => !mcp?.servers.has(s));
    if (servers.length) throw new Error(`agent ${agent.name} uses unconfigured MCP servers: ${servers.join(', ')}`);
  }
}
