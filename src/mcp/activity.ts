/**
 * The MCP part of the `startTurn` activity: adds an agent's MCP tools (listed now, recorded with the
 * spec) and their default gates to its spec, and turns failures into clear, typed activity failures.
 */
import { ApplicationFailure, log } from '@temporalio/activity';
import { FailureType } from '../core/failures';
import type { AgentSpec } from '../core/spec';
import { McpToolNotFoundError, resolveAgentMcpTools, type McpAgentConfig } from './agent-tools';
import { McpUnavailableError, type McpPool } from './pool';

export async function withMcpTools(
  spec: AgentSpec,
  def: McpAgentConfig,
  pool: McpPool | undefined,
): Promise<AgentSpec> {
  const usesMcp = (def.mcp?.length ?? 0) > 0 || def.tools.some((t) => pool?.owns(t));
  if (!usesMcp) return spec;
  if (!pool) {
    throw ApplicationFailure.create({
      type: FailureType.McpNotConfigured,
      message: `agent ${def.name} uses MCP servers (${(def.mcp ?? []).join(', ')}), but this worker has no mcpServers`,
      nonRetryable: true,
    });
  }
  const unknown = (def.mcp ?? []).filter((s) => !pool.servers.has(s));
  if (unknown.length) {
    throw ApplicationFailure.create({
      type: FailureType.McpNotConfigured,
      message: `agent ${def.name} uses MCP servers that are not configured on this worker: ${unknown.join(', ')}`,
      nonRetryable: true,
    });
  }
  let resolved;
  try {
    resolved = await resolveAgentMcpTools(
      def,
      (name) => pool.owns(name),
      (server) => pool.listTools(server),
    );
  } catch (err) {
    if (err instanceof McpUnavailableError) {
      // Retried by the activity's policy: a server that is restarting may answer the next attempt.
      throw ApplicationFailure.create({ type: FailureType.McpServerUnavailable, message: err.message, cause: err });
    }
    if (err instanceof McpToolNotFoundError) {
      throw ApplicationFailure.create({ type: FailureType.McpToolNotFound, message: err.message, nonRetryable: true });
    }
    throw err;
  }
  if (resolved.skipped.length) {
    log.warn('MCP tools left out: their names are not valid tool names (1-64 letters, digits, _ or -)', {
      agent: def.name,
      tools: resolved.skipped,
    });
  }
  // The agent's own gates win over the defaults from annotations.
  return { ...spec, tools: [...spec.tools, ...resolved.tools], gates: { ...resolved.gates, ...spec.gates } };
}
