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

/**
 * A server reached over MCP's streamable HTTP transport. Secrets in its URL (userinfo, query
 * parameters) and its headers are never shown: messages, logs and history get the URL redacted.
 */
export const McpHttpServer = z.strictObject({
  name: ServerName,
  runAsActivity: RunAsActivity,
  url: z.url(),
  /** Sent with every request, e.g. `{ Authorization: 'Bearer …' }`. */
  headers: z.record(z.string(), z.string()).optional(),
});

/** An MCP server whose tools agents may use (`createWorker({ mcpServers })`): stdio or streamable HTTP. */
export const McpServerConfig = z.union([McpStdioServer, McpHttpServer]);
/** A server Tiller starts as a child process and talks to over stdin/stdout. */
export type McpStdioServer = z.infer<typeof McpStdioServer>;
/** A server reached over MCP's streamable HTTP transport. */
export type McpHttpServer = z.infer<typeof McpHttpServer>;
/** An MCP server's configuration: a stdio server (`command`, `args`) or an HTTP one (`url`). */
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

/** Where a server is, for error messages and logs: never its headers, env, URL userinfo or query values. */
export function describeServer(server: McpServerConfig): string {
  return 'url' in server ? `${server.name} (${redactUrl(server.url)})` : `${server.name} (${server.command})`;
}

const HIDDEN = 'redacted';

/** A URL as messages show it: userinfo and query values replaced, the fragment left out. */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return '(an invalid URL)';
  }
  const userinfo = url.username || url.password ? `${HIDDEN}@` : '';
  const query = [...url.searchParams.keys()].map((k) => `${encodeURIComponent(k)}=${HIDDEN}`).join('&');
  return `${url.protocol}//${userinfo}${url.host}${url.pathname}${query ? `?${query}` : ''}`;
}

/**
 * `text` (an error from the MCP SDK or the server, a tool's result) with the server's secrets taken
 * out: its URL as {@link redactUrl} shows it, and every userinfo part, query value, header value
 * (and the token after a scheme such as `Bearer`) or stdio `env` value of 6 characters or more.
 */
export function scrubSecrets(text: string, server: McpServerConfig): string {
  let out = text;
  const secrets: string[] = [];
  if ('url' in server) {
    const shown = redactUrl(server.url);
    for (const form of urlForms(server.url)) out = out.split(form).join(shown);
    secrets.push(...urlSecrets(server.url));
    for (const value of Object.values(server.headers ?? {})) secrets.push(value, ...value.split(/\s+/).slice(1));
  } else {
    secrets.push(...Object.values(server.env ?? {}));
  }
  const longestFirst = [...new Set(secrets)].filter((s) => s.length >= 6).sort((a, b) => b.length - a.length);
  for (const secret of longestFirst) out = out.split(secret).join(`[${HIDDEN}]`);
  return out;
}

function urlForms(raw: string): string[] {
  try {
    return [...new Set([raw, new URL(raw).href])].sort((a, b) => b.length - a.length);
  } catch {
    return [raw];
  }
}

function urlSecrets(raw: string): string[] {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [raw];
  }
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const out = [url.username, url.password, decode(url.username), decode(url.password), url.search.slice(1)];
  for (const [, value] of url.searchParams) out.push(value);
  for (const pair of url.search.slice(1).split('&')) out.push(pair.slice(pair.indexOf('=') + 1));
  return out;
}
