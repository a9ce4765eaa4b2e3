/**
 * MCP server configuration (`createWorker({ mcpServers })`): a zod schema, because it arrives from
 * user code or a config file and a typo should fail at startup with a readable message.
 */
import { z } from 'zod';
import { formatZodError } from '../core/schemas';

/** A server name: it prefixes its tools' names (`<server>__<tool>`), so it may not contain `__`. */
const ServerName = z
  .string()
  .regex(/^[a-zA-Z0-9-]+(_[a-zA-Z0-9-]+)*$/, 'letters, digits, - and single _ only (`__` separates server and tool)');

/**
 * Tools of the server (their names on it) that run as regular activities even when the server marks
 * them read-only, which would put them on the fast path (local activities): e.g. slow ones.
 */
const RunAsActivity = z.array(z.string()).optional();

/** A server Tiller starts as a child process and talks to over stdin/stdout. */
export const McpStdioServer = z.strictObject({
  name: ServerName,
  runAsActivity: RunAsActivity,
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  /** Added to a minimal inherited environment (PATH, HOME, …), not to the worker's whole environment. */
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
});

/** A server reached over MCP's streamable HTTP transport. */
export const McpHttpServer = z.strictObject({
  name: ServerName,
  runAsActivity: RunAsActivity,
  url: z.url(),
  /** Sent with every request, e.g. `{ Authorization: 'Bearer …' }`. */
  headers: z.record(z.string(), z.string()).optional(),
});

export const McpServerConfig = z.union([McpStdioServer, McpHttpServer]);
export type McpStdioServer = z.infer<typeof McpStdioServer>;
export type McpHttpServer = z.infer<typeof McpHttpServer>;
export type McpServerConfig = z.infer<typeof McpServerConfig>;

/** Validates a worker's MCP server list: each entry well-formed, names unique. */
export function parseMcpServers(raw: readonly unknown[]): McpServerConfig[] {
  const servers = raw.map((entry, i) => {
    // Pick the variant by its telling key, so a typo gets that variant's message, not "invalid union".
    const schema = entry && typeof entry === 'object' && 'url' in entry ? McpHttpServer : McpStdioServer;
    const parsed = schema.safeParse(entry);
    if (!parsed.success) throw new Error(`mcpServers[${i}] is invalid: ${formatZodError(parsed.error)}`);
    return parsed.data;
  });
  const seen = new Set<string>();
  for (const { name } of servers) {
    if (seen.has(name)) throw new Error(`mcpServers: the name "${name}" is used twice`);
    seen.add(name);
  }
  return servers;
}

/** Where a server is, for error messages (never its headers or env, which may hold secrets). */
export function describeServer(server: McpServerConfig): string {
  return 'url' in server ? `${server.name} (${server.url})` : `${server.name} (${server.command})`;
}
