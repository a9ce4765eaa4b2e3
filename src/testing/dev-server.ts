/**
 * Starts a real local Temporal dev server (`temporal server start-dev`) with Tiller's search
 * attributes registered and Tiller's latency tuning (DEV_SERVER_DYNAMIC_CONFIG), and waits until it
 * answers. Used by `tiller dev`, the test suite and the benchmarks.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../core/contract';
import { freePort } from './free-port';
import { stopChild } from './stop-child';

export { freePort } from './free-port';

/**
 * Dynamic config Tiller gives every dev server it starts (`tiller dev`, the tests, the bench; the
 * docker-compose file sets the same for its server). Keys are defined in the server's
 * common/dynamicconfig/constants.go (checked against 1.31.0, which docker-compose.yml pins, and the
 * 1.32 the CLI embeds).
 *
 * A dev server has one history shard. Each of its queue readers (transfer: dispatch of workflow and
 * activity tasks to matching; timer: timeouts, timers, retries; visibility: search attributes for list
 * queries) loads new tasks from persistence at most `MaxPollRPS` times a second — 20 by default — so
 * every new workflow task waited up to 50 ms before a worker could see it: two waits per tool step, most
 * of what a step cost (BENCHMARKS.md, "stock" rows). The limit only caps how often a reader may load when
 * it has been told of new tasks; an idle reader does not poll faster.
 */
export const DEV_SERVER_DYNAMIC_CONFIG: Readonly<Record<string, number | boolean | string>> = {
  // Workflow and activity tasks reach matching within a millisecond or two of being written, not ≤ 50 ms.
  'history.transferProcessorMaxPollRPS': 1000,
  // Timers, approval deadlines, activity timeouts and local-activity retry backoffs fire on time.
  'history.timerProcessorMaxPollRPS': 1000,
  // TillerStatus / TillerPendingTools reach list queries (`tiller pending`, the inbox) without the wait.
  'history.visibilityProcessorMaxPollRPS': 1000,
};

/**
 * SQLite settings for a dev server that persists to a file (`tiller dev`): write-ahead logging with
 * `synchronous=normal` syncs the log at checkpoints instead of on every commit. Measured with the
 * bench's durable section (50-step turns, SQLite file): a bare two-activity loop 75.4 → 39.7 ms per
 * step, a Tiller turn 75.8 → 45.8 ms. A commit survives the server being killed (`kill -9`: the log is
 * in the file); only an operating-system crash or power loss may lose the last commits — a dev
 * server's trade, not a production one (production runs on PostgreSQL, docker-compose.yml).
 */
export const DEV_SERVER_SQLITE_PRAGMAS: readonly string[] = ['journal_mode=wal', 'synchronous=normal'];

/** A running local Temporal dev server. */
export interface DevServer {
  /** The frontend's `host:port`, for `TEMPORAL_ADDRESS`. */
  address: string;
  /** The namespace it serves (with Tiller's search attributes registered). */
  namespace: string;
  /** The web UI's URL, when it was started with one. */
  uiUrl?: string;
  /** The `temporal server start-dev` process. */
  process: ChildProcess;
  /** Stops the server and waits for it to exit. */
  stop(): Promise<void>;
}

/** Options for starting a local Temporal dev server. */
export interface DevServerOptions {
  /** Path to the `temporal` CLI (see scripts/ensure-temporal.js). */
  cli: string;
  ip?: string;
  port?: number;
  /** HTTP API port (default: a free one). */
  httpPort?: number;
  /** Start the web UI on this port (default: no UI). */
  uiPort?: number;
  /** Persist to this SQLite file instead of memory. */
  dbFilename?: string;
  namespace?: string;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /**
   * `'tiller'` (default): DEV_SERVER_DYNAMIC_CONFIG; `'stock'`: the CLI's own defaults (the bench
   * compares the two).
   */
  tuning?: 'tiller' | 'stock';
  /** More dynamic config values (`--dynamic-config-value KEY=JSON`); they win over the tuning. */
  dynamicConfig?: Record<string, number | boolean | string>;
  /** Extra `start-dev` arguments. */
  extraArgs?: string[];
  /** Forward the server's output (default: keep only the last lines for error messages). */
  inheritOutput?: boolean;
}

/** True when a Temporal frontend answers at `address` within `timeoutMs`. */
export async function isTemporalReachable(address: string, timeoutMs = 2_000): Promise<boolean> {
  try {
    const connection = await Connection.connect({ address, connectTimeout: timeoutMs });
    try {
      await connection.workflowService.getSystemInfo({});
      return true;
    } finally {
      await connection.close();
    }
  } catch {
    return false;
  }
}

/** Starts made before giving up when the server exits while starting. */
const START_ATTEMPTS = 3;

/**
 * Starts `temporal server start-dev` and waits until it answers. A server that exits while starting
 * is started again, up to 3 times: the CLI picks its internal ports (history, matching, worker, their
 * membership ports) itself, from the ephemeral range, and any outgoing connection can take one before
 * the server binds it — a dev server restarted on its fixed port after kill -9 died so (issue 34).
 * The ports picked here lie outside that range (./free-port.ts); fresh ones are picked for each start
 * unless given, and given ones are kept. A bench run here also once saw the server panic during
 * start-up and start cleanly the next time. The error keeps the output's head, where a panic says why.
 */
export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts);
    } catch (err) {
      if (!(err instanceof EarlyExit) || attempt >= START_ATTEMPTS) throw err;
    }
  }
}

class EarlyExit extends Error {}

async function startOnce(opts: DevServerOptions): Promise<DevServer> {
  const ip = opts.ip ?? '127.0.0.1';
  const port = opts.port ?? (await freePort(ip));
  const namespace = opts.namespace ?? 'default';
  const dynamicConfig = { ...(opts.tuning === 'stock' ? {} : DEV_SERVER_DYNAMIC_CONFIG), ...opts.dynamicConfig };
  const args = [
    'server',
    'start-dev',
    '--ip',
    ip,
    '--port',
    String(port),
    '--namespace',
    namespace,
    // Every port chosen here: concurrent dev servers (tests, benchmarks) must not collide.
    '--http-port',
    String(opts.httpPort ?? (await freePort(ip))),
    '--metrics-port',
    String(await freePort(ip)),
    '--log-level',
    opts.logLevel ?? 'error',
    ...Object.entries(SEARCH_ATTRIBUTES).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]),
    ...(opts.uiPort !== undefined ? ['--ui-port', String(opts.uiPort)] : ['--headless']),
    ...(opts.dbFilename
      ? ['--db-filename', opts.dbFilename, ...DEV_SERVER_SQLITE_PRAGMAS.flatMap((p) => ['--sqlite-pragma', p])]
      : []),
    ...Object.entries(dynamicConfig).flatMap(([key, value]) => [
      '--dynamic-config-value',
      `${key}=${JSON.stringify(value)}`,
    ]),
    ...(opts.extraArgs ?? []),
  ];
  const child = spawn(opts.cli, args, { stdio: opts.inheritOutput ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
  // The head says why a server died (a Go panic's message comes before its goroutines), the tail
  // what it did last.
  let head = '';
  let tail = '';
  const keep = (chunk: Buffer) => {
    const text = chunk.toString();
    if (head.length < 1_500) head += text.slice(0, 1_500 - head.length);
    tail = (tail + text).slice(-2_500);
  };
  const output = () => (head.length < 1_500 ? head : `${head}\n…\n${tail}`);
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: number | null = null;
  child.on('exit', (code) => {
    exited = code ?? -1;
  });

  const address = `${ip}:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (exited !== null) throw new EarlyExit(`temporal server start-dev exited with ${exited}:\n${output()}`);
    if (await isTemporalReachable(address, 1_000)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`temporal dev server did not answer at ${address} within 90 s:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }

  const stop = () => stopChild(child);
  return {
    address,
    namespace,
    ...(opts.uiPort !== undefined && { uiUrl: `http://${ip}:${opts.uiPort}` }),
    process: child,
    stop,
  };
}
