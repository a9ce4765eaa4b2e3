/**
 * Tools as the workflow knows them (part of the plain-JSON spec, src/core/spec/index.ts): a worker tool, a
 * sub-agent, a handoff or an MCP server's tool, by name, description and JSON Schema.
 */

import type { DurationLike } from './gates';

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments, generated from the tool's zod schema. */
  parameters: Record<string, unknown>;
  /** Start-to-close timeout of one attempt of this tool's activity. */
  timeout?: DurationLike;
  heartbeatTimeout?: DurationLike;
  /** The tool can show an approver what a call would do before it is approved. */
  preview?: boolean;
  /** Run as a local activity, or (`false`) never (see `ToolDefinition.local`); absent: decided by `readOnly`. */
  local?: boolean;
  /** The tool only reads (`ToolDefinition.readOnly`): the fast path runs it as a local activity. */
  readOnly?: boolean;
  /** Not a worker tool but a sub-agent: calling it runs `agent` as a child `agentTurn`. */
  subAgent?: { agent: string; inherit: boolean };
  /** Not a worker tool but a handoff: calling it gives the rest of the turn to `agent`. */
  handoff?: { agent: string };
  /** A tool of an MCP server, listed by `startTurn` and called through the worker's MCP client. */
  mcp?: McpToolOrigin;
}

/** Where an MCP tool comes from, and the hints its server gave (recorded as listed). */
export interface McpToolOrigin {
  server: string;
  /** The tool's name on its server (the spec's `name` is `<server>__<tool>`). */
  tool: string;
  annotations?: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}
