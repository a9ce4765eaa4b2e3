/**
 * Which MCP tools an agent gets, resolved once per turn by `startTurn`: each server it uses is listed
 * once, its tools become `ToolSpec`s in the recorded spec, and all but read-only ones get a default gate.
 */
import type { GateSpec, ToolSpec } from '../core/spec';
import { defaultMcpGates, mcpToolSpec, type McpTool } from './convert';
import { isValidToolName, qualifiedName, splitQualifiedName } from './names';

/** What an agent definition says about MCP (see `AgentDefinition.mcp`). */
export interface McpAgentConfig {
  name: string;
  tools: readonly string[];
  mcp?: readonly string[];
  approvals?: Readonly<Record<string, unknown>>;
}

export interface AgentMcpTools {
  tools: ToolSpec[];
  gates: Record<string, GateSpec>;
  /** Tools of an all-tools server left out because their qualified name is not a valid tool name. */
  skipped: string[];
}

export class McpToolNotFoundError extends Error {
  override readonly name = 'McpToolNotFoundError';
}

/**
 * The agent's MCP tools: the ones it names as `<server>__<tool>` in `tools` (in that order), then every
 * tool of each server in `mcp`. `isMcp` tells which names in `tools` are MCP ones (configured server).
 */
export async function resolveAgentMcpTools(
  agent: McpAgentConfig,
  isMcp: (name: string) => boolean,
  listTools: (server: string) => Promise<McpTool[]>,
): Promise<AgentMcpTools> {
  const named = agent.tools.filter(isMcp).map((name) => ({ name, ...splitQualifiedName(name)! }));
  const allOf = agent.mcp ?? [];
  const servers = [...new Set([...named.map((n) => n.server), ...allOf])];
  const listings = new Map<string, McpTool[]>();
  // Listed one server after another: a turn's spec then never depends on which answered first.
  for (const server of servers) listings.set(server, await listTools(server));

  const picked: { spec: ToolSpec; tool: McpTool }[] = [];
  const seen = new Set<string>();
  const skipped: string[] = [];
  const add = (server: string, tool: McpTool) => {
    const spec = mcpToolSpec(server, tool);
    if (seen.has(spec.name)) return;
    seen.add(spec.name);
    picked.push({ spec, tool });
  };
  for (const { name, server, tool } of named) {
    const offered = listings.get(server) ?? [];
    const found = offered.find((t) => t.name === tool);
    if (!found) {
      throw new McpToolNotFoundError(
        `agent ${agent.name} uses tool ${name}, but MCP server ${server} offers no tool "${tool}" ` +
          `(it offers: ${offered.map((t) => t.name).join(', ') || 'none'})`,
      );
    }
    add(server, found);
  }
  for (const server of allOf) {
    for (const tool of listings.get(server) ?? []) {
      if (isValidToolName(qualifiedName(server, tool.name))) add(server, tool);
      else skipped.push(qualifiedName(server, tool.name));
    }
  }
  return {
    tools: picked.map((p) => p.spec),
    gates: defaultMcpGates(picked, agent.approvals),
    skipped,
  };
}
