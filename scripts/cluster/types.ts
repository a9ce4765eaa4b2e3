/**
 * The production shape on one machine, as a handle: PostgreSQL, the Temporal server as separate
 * services (frontend, history, matching, worker), Tiller workers and the gateway — every one a real
 * process that can be killed (`kill -9`) and started again with the same configuration.
 *
 * `npm run cluster -- up|down|status` drives it from the shell; `npm run soak` drives it in-process.
 */

/** What a process is, for fault schedules: which ones to kill, and what recovery means. */
export type ProcessRole =
  'postgres' | 'frontend' | 'history' | 'matching' | 'temporal-worker' | 'tiller-worker' | 'gateway' | 'oidc' | 'ui';

export interface ClusterProcess {
  /**
   * Unique name: `postgres`, `frontend`, `history`, `matching`, `temporal-worker`, `worker-1`…, `gateway`,
   * and with the UI `oidc` (its stand-in identity provider) and `ui`.
   */
  name: string;
  role: ProcessRole;
  /** Undefined while stopped. */
  pid?: number;
  /** Its log file (stdout and stderr). */
  log: string;
}

export interface ClusterOptions {
  /** Tiller workers to start (default 2). */
  workers?: number;
  /** Start the HTTP gateway (default true). */
  gateway?: boolean;
  /**
   * Command that runs one Tiller worker (default: `node bin/tiller.js worker`). The soak runs its own
   * worker (with its ledger tool); it must connect to `TEMPORAL_ADDRESS`/`TEMPORAL_NAMESPACE`/
   * `TILLER_TASK_QUEUE` from its environment, should run the prebuilt workflow bundle in
   * `TILLER_WORKFLOW_BUNDLE` (`workflowBundle: { codePath }`: a restart then takes seconds), and print a line matching `readyPattern` once polling.
   */
  workerCommand?: { command: string; args: string[]; readyPattern?: RegExp };
  /** Extra environment for Tiller workers and the gateway (e.g. `OPENAI_BASE_URL` of a scripted model). */
  env?: Record<string, string>;
  /**
   * The old, unsecured shape: no TLS, no authorization (any client that reaches the frontend may do
   * anything). Default false: mTLS everywhere and Tiller's authorizer (deploy/temporal/server).
   */
  insecure?: boolean;
  /**
   * Start the Temporal UI (scripts/cluster/ui.ts: ui-server built from source, signing in through a
   * stand-in OIDC provider with the cluster's tokens). Secured shape only; default false here, on in
   * `npm run cluster -- up` (`--no-ui` leaves it out).
   */
  ui?: boolean;
  /** Frontend gRPC port (default 7233; other ports are derived from it). */
  port?: number;
  /**
   * The server's `numHistoryShards` (NUM_HISTORY_SHARDS; default the compose file's, else the server's 4).
   * Fixed when the database is created: a database made with another count refuses to start the server.
   */
  historyShards?: number;
  /** Extra PostgreSQL settings (`-c name=value`), e.g. `shared_preload_libraries: 'pg_stat_statements'`. */
  postgresSettings?: Record<string, string>;
  /** Progress lines (default: none; the CLI prints them to stderr). */
  log?: (line: string) => void;
}

export interface Cluster {
  /** Frontend gRPC address, e.g. `127.0.0.1:7233`. */
  address: string;
  namespace: string;
  /** What runs the server, for reports: version, persistence, process layout. */
  description: string;
  taskQueue: string;
  /** The gateway's base URL and a bearer token that may start turns and decide (when the gateway runs). */
  gateway?: { url: string; token: string };
  /** The Temporal UI's URL and its stand-in OIDC provider's (when it runs). */
  ui?: { url: string; oidcUrl: string };
  /** The `temporal` CLI binary (for approvals from the stock CLI). */
  temporalCli: string;
  /** Whether TLS and authorization are on (false after `up --insecure`). */
  secured: boolean;
  /**
   * The environment a client sets to connect as `profile`: address, namespace, task queue and, when
   * secured, `TEMPORAL_CONFIG_FILE` and `TEMPORAL_PROFILE` (Temporal's envconfig).
   */
  clientEnv(profile: 'worker' | 'gateway' | 'approver' | 'reader' | 'admin'): Record<string, string>;
  /** A token of this cluster (default: an hour, this namespace); throws on the insecure shape. */
  token(request: {
    role: 'worker' | 'gateway' | 'approver' | 'reader' | 'admin';
    subject: string;
    groups?: string[];
    ttlSeconds?: number;
    namespace?: string;
  }): Promise<string>;
  /** A snapshot of every process. */
  processes(): ClusterProcess[];
  /** Sends `signal` (default SIGKILL) to the named process and waits until it has exited. */
  kill(name: string, signal?: NodeJS.Signals): Promise<void>;
  /** Starts the named (stopped) process again with its configuration; resolves once it is ready. */
  start(name: string): Promise<void>;
  /** Stops everything this handle started. */
  down(): Promise<void>;
}
