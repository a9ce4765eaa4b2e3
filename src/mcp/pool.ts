/**
 * The worker's MCP clients: one per configured server, connected on first use, dropped and
 * reconnected after a transport failure, closed with `close()` (createWorker does it on shutdown).
 * The only module here that does I/O.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describeServer, parseMcpServers, scrubSecrets, type McpServerConfig } from './config';
import type { McpCallResult, McpTool } from './convert';
import { splitQualifiedName } from './names';

/** The server could not be reached (connect or transport failure), as opposed to a tool that failed. */
export class McpUnavailableError extends Error {
  override readonly name = 'McpUnavailableError';
  constructor(
    readonly server: string,
    message: string,
  ) {
    super(message);
  }
}

export interface McpCallOptions {
  signal?: AbortSignal;
  /** Per-request timeout in ms (the SDK's default is 60 s). */
  timeoutMs?: number;
  /** Sent as the request's `_meta`, e.g. the call's idempotency key. */
  meta?: Record<string, unknown>;
}

/** How an {@link McpPool} introduces itself to servers and where stdio servers' stderr goes. */
export interface McpPoolOptions {
  /** How this client introduces itself to servers. */
  clientInfo?: { name: string; version: string };
  /** Where a stdio server's stderr goes; default `inherit` (the worker's stderr). */
  stderr?: 'inherit' | 'ignore';
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A JSON-RPC error answered by the server: the connection itself is fine. */
function isProtocolError(err: unknown): boolean {
  return err instanceof McpError && err.code !== ErrorCode.ConnectionClosed && err.code !== ErrorCode.RequestTimeout;
}

/**
 * The worker's MCP clients, one per configured server: opened on first use, reopened after a failure,
 * closed by `close()` (the plugin closes them when the worker's run ends).
 */
export class McpPool {
  readonly servers: ReadonlyMap<string, McpServerConfig>;
  /** Per server: the connection being opened or open; `client` is set once it is open. */
  private readonly connections = new Map<string, { opening: Promise<Client>; client?: Client }>();
  /** The last tool list seen per server, for calls on a worker that did not list them itself. */
  private readonly listed = new Map<string, Map<string, McpTool>>();
  private closed = false;

  constructor(
    servers: readonly McpServerConfig[],
    private readonly options: McpPoolOptions = {},
  ) {
    this.servers = new Map(parseMcpServers(servers).map((s) => [s.name, s]));
  }

  /** Whether `name` is `<server>__<tool>` for a configured server. */
  owns(name: string): boolean {
    const split = splitQualifiedName(name);
    return split !== undefined && this.servers.has(split.server);
  }

  /** Every tool the server offers now (all pages); also refreshes what `tool()` answers from. */
  async listTools(server: string): Promise<McpTool[]> {
    const tools = await this.withClient(server, async (client) => {
      const all: McpTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        all.push(...(page.tools as McpTool[]));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return all;
    });
    this.listed.set(server, new Map(tools.map((t) => [t.name, t])));
    return tools;
  }

  /** One tool's definition, from the last listing or a fresh one. */
  async tool(server: string, name: string): Promise<McpTool | undefined> {
    return this.listed.get(server)?.get(name) ?? (await this.listTools(server)).find((t) => t.name === name);
  }

  /**
   * Calls a tool. A call is never repeated here (it may have had effects); a transport failure drops
   * the connection so the next request reconnects, and is thrown as {@link McpUnavailableError}.
   */
  async callTool(server: string, name: string, args: unknown, opts: McpCallOptions = {}): Promise<McpCallResult> {
    const client = await this.connect(server);
    try {
      const result = await client.callTool(
        {
          name,
          arguments: args as Record<string, unknown>,
          ...(opts.meta && { _meta: opts.meta }),
        },
        undefined,
        {
          ...(opts.signal && { signal: opts.signal }),
          ...(opts.timeoutMs !== undefined && { timeout: opts.timeoutMs }),
        },
      );
      return result as McpCallResult;
    } catch (err) {
      if (isProtocolError(err) || opts.signal?.aborted) throw err;
      this.drop(server, client);
      throw new McpUnavailableError(
        server,
        `MCP server ${this.describe(server)} failed: ${this.scrub(server, message(err))}`,
      );
    }
  }

  /** `text` without the server's secrets (URL userinfo and query values, header and env values). */
  scrub(server: string, text: string): string {
    const config = this.servers.get(server);
    return config ? scrubSecrets(text, config) : text;
  }

  /** Closes every connection (a stdio server's process ends with it). The pool cannot be used after. */
  async close(): Promise<void> {
    this.closed = true;
    const pending = [...this.connections.values()];
    this.connections.clear();
    await Promise.allSettled(pending.map(async (c) => (await c.opening).close()));
  }

  /** How many servers have a connection open or opening (for tests and health output). */
  get openConnections(): number {
    return this.connections.size;
  }

  /** Runs a read-only request, reconnecting once if the connection turned out to be dead. */
  private async withClient<T>(server: string, fn: (client: Client) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.connect(server);
      try {
        return await fn(client);
      } catch (err) {
        if (isProtocolError(err)) throw err;
        this.drop(server, client);
        if (attempt >= 2) {
          const why = this.scrub(server, message(err));
          throw new McpUnavailableError(server, `MCP server ${this.describe(server)} failed: ${why}`);
        }
      }
    }
  }

  private connect(server: string): Promise<Client> {
    if (this.closed) return Promise.reject(new Error('the MCP pool is closed'));
    const config = this.servers.get(server);
    if (!config) return Promise.reject(new Error(`no MCP server named "${server}" is configured`));
    const existing = this.connections.get(server);
    if (existing) return existing.opening;
    const entry: { opening: Promise<Client>; client?: Client } = { opening: this.open(config) };
    this.connections.set(server, entry);
    entry.opening.then(
      (client) => {
        entry.client = client;
      },
      // A failed connect is forgotten, so the next request tries again.
      () => {
        if (this.connections.get(server) === entry) this.connections.delete(server);
      },
    );
    return entry.opening;
  }

  private async open(config: McpServerConfig): Promise<Client> {
    const client = new Client(this.options.clientInfo ?? { name: 'tiller', version: '0.2' });
    const transport = this.transport(config);
    try {
      await client.connect(transport);
    } catch (err) {
      await client.close().catch(() => undefined);
      throw new McpUnavailableError(
        config.name,
        `MCP server ${describeServer(config)} is unreachable: ${scrubSecrets(message(err), config)}`,
      );
    }
    // A stdio server that exits, or an HTTP session the server ended: reconnect on next use.
    client.onclose = () => this.drop(config.name, client);
    return client;
  }

  private transport(config: McpServerConfig): Transport {
    if ('url' in config) {
      return new StreamableHTTPClientTransport(new URL(config.url), {
        ...(config.headers && { requestInit: { headers: config.headers } }),
      });
    }
    return new StdioClientTransport({
      command: config.command,
      ...(config.args && { args: config.args }),
      ...(config.env && { env: config.env }),
      ...(config.cwd && { cwd: config.cwd }),
      stderr: this.options.stderr ?? 'inherit',
    });
  }

  /** Forgets a dead connection (only if it is still the current one) and closes it. */
  private drop(server: string, client: Client): void {
    if (this.connections.get(server)?.client !== client) return;
    this.connections.delete(server);
    client.close().catch(() => undefined);
  }

  private describe(server: string): string {
    const config = this.servers.get(server);
    return config ? describeServer(config) : server;
  }
}
