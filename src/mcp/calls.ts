/**
 * An MCP tool as the tool activities run it: arguments checked against its `inputSchema`, then a
 * `tools/call` on the server. A result with `isError` throws {@link McpToolError} with the server's
 * text, so it is folded into the model's tool result like any tool's failure.
 */
import { resultText } from './convert';
import { splitQualifiedName } from './names';
import type { McpPool } from './pool';
import type { ArgsCheck, McpArgsValidator } from './validate';

export class McpToolError extends Error {
  override readonly name = 'McpToolError';
}

/** Sent as `_meta` of every call: the same on each retry of one tool call, for servers that dedupe. */
export const IDEMPOTENCY_META_KEY = 'tiller/idempotencyKey';

export interface McpCallable {
  validate(args: unknown): Promise<ArgsCheck>;
  /** `ctx`: the part of a tool's context (src/tools/define.ts `ToolContext`) that an MCP call uses. */
  execute(args: unknown, ctx: { idempotencyKey: string; signal: AbortSignal; timeoutMs?: number }): Promise<string>;
}

/** The callable for a qualified tool name, or undefined when no configured server owns the name. */
export function mcpCallable(pool: McpPool, validator: McpArgsValidator, name: string): McpCallable | undefined {
  const split = splitQualifiedName(name);
  if (!split || !pool.servers.has(split.server)) return undefined;
  const { server, tool } = split;
  return {
    async validate(args) {
      const def = await pool.tool(server, tool);
      if (!def) return { type: 'invalid', error: `MCP server ${server} offers no tool "${tool}" (any more)` };
      return validator.check(def, args);
    },
    async execute(args, ctx) {
      const result = await pool.callTool(server, tool, args, {
        signal: ctx.signal,
        ...(ctx.timeoutMs !== undefined && { timeoutMs: ctx.timeoutMs }),
        meta: { [IDEMPOTENCY_META_KEY]: ctx.idempotencyKey },
      });
      // A server that echoes its credentials does not put them in history.
      const text = pool.scrub(server, resultText(result));
      if (result.isError) throw new McpToolError(text || 'the MCP server reported an error without details');
      return text;
    },
  };
}
