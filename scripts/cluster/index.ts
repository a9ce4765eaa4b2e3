/**
 * The production shape on one machine, from docker-compose.yml (see ./compose): PostgreSQL, the
 * Temporal server built from source and run as separate frontend / history / matching / worker
 * processes, the namespace and Tiller's search attributes, N Tiller workers and the gateway.
 *
 * State (pids, how to restart each process, the gateway token) lives in `.tools/cluster/state.json`,
 * so `down` and `status` work from another shell, and a soak's handle can kill and restart any part.
 */
import { createHash, randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Connection, type ConnectionOptions } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { ensureSearchAttributes } from '../../src/worker/search-attributes';
import { SEARCH_ATTRIBUTES } from '../../src/core/contract';
import { temporalSettings } from '../../src/client/connect';
import { ensureServerBinaries, type ServerBinaries } from './binaries';
import { readCompose, ROOT, type ComposeShape } from './compose';
import { databasePassword, DB_USER, prepareDatabase } from './database';
import { ensurePostgres, Postgres, postgresHome } from './postgres';
import { assertClusterPortsFree } from './port-check';
import { isAlive, startProcess, stopProcess, type ProcessSpec } from './processes';
import {
  ensureSecurity,
  serverSecurityEnv,
  signToken,
  TOML_FILE,
  writeProfiles,
  type Role,
  type SecurityFiles,
  type TokenRequest,
} from './security';
import type { Cluster, ClusterOptions, ClusterProcess } from './types';
import { ensureUiBinary, uiSetup, uiVersion } from './ui';

export type { Cluster, ClusterOptions, ClusterProcess } from './types';

/** The cluster's private directory (0700): `.tools/cluster`, or TILLER_CLUSTER_DIR (two clusters on one machine). */
export const CLUSTER_DIR = path.resolve(process.env.TILLER_CLUSTER_DIR || path.join(ROOT, '.tools', 'cluster'));
const STATE_FILE = path.join(CLUSTER_DIR, 'state.json');
const LOGS = path.join(CLUSTER_DIR, 'logs');

/** The Temporal services, in start order (history owns the shards the others route to). */
const SERVICES = ['history', 'matching', 'frontend', 'worker'] as const;
type Service = (typeof SERVICES)[number];

/**
 * Ports, offset from the frontend's 7233 so two clusters (or a dev server on 7233) can coexist:
 * the server's defaults for gRPC and membership, Prometheus on 9233 + n, PostgreSQL on 55432.
 */
export function clusterPorts(frontend = 7233) {
  const d = frontend - 7233;
  const grpc: Record<Service, number> = { frontend: 7233, history: 7234, matching: 7235, worker: 7239 };
  const membership: Record<Service, number> = { frontend: 6933, history: 6934, matching: 6935, worker: 6939 };
  const metrics: Record<Service, number> = { frontend: 9233, history: 9234, matching: 9235, worker: 9239 };
  const shift = (m: Record<Service, number>) =>
    Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v + d])) as Record<Service, number>;
  return {
    grpc: shift(grpc),
    membership: shift(membership),
    metrics: shift(metrics),
    frontendHttp: 7243 + d,
    postgres: 55432 + d,
    gateway: 8787 + d,
    workerMetrics: (i: number) => 9464 + d + i,
  };
}

interface ClusterState {
  serverVersion: string;
  address: string;
  namespace: string;
  taskQueue: string;
  postgres: {
    home: string;
    port: number;
    bin: string;
    settings?: Record<string, string>;
  };
  gateway?: { url: string; token: string };
  temporalCli: string;
  /** Absent on the insecure shape (`up --insecure`). */
  security?: { files: SecurityFiles; configFile: string };
  /** The Temporal UI and its stand-in OIDC provider (`up` without `--no-ui`; ./ui.ts). */
  ui?: { url: string; oidcUrl: string };
  processes: ProcessSpec[];
}

function writeState(state: ClusterState): void {
  fs.mkdirSync(CLUSTER_DIR, { recursive: true, mode: 0o700 });
  // It holds the database password (the server's environment) and the gateway token: owner only.
  fs.writeFileSync(STATE_FILE, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}

export function readState(): ClusterState | undefined {
  try {
    return JSON.parse(fs.readFileSync(STATE_FILE, 'utf8')) as ClusterState;
  } catch {
    return undefined;
  }
}

function temporalCli(): string {
  // Plain CommonJS, shared with the test suite's setup: finds or installs the `temporal` CLI.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ensureTemporal } = require('../ensure-temporal.js') as {
    ensureTemporal(o: { quiet: boolean; needTestServer: boolean }): { cli: string };
  };
  return ensureTemporal({ quiet: true, needTestServer: false }).cli;
}

function validateDynamicConfig(bins: ServerBinaries, file: string): void {
  const r = spawnSync(bins.server, ['validate-dynamic-config', file], { encoding: 'utf8' });
  const out = `${r.stdout}${r.stderr}`;
  // It prints the file's name, then `warning: unregistered key "…"` or an error per bad key (and still
  // exits 0); at run time the server silently ignores a key it does not know.
  if (r.status !== 0 || /warning|error|unregistered|invalid/i.test(out))
    throw new Error(`${file} does not validate against Temporal server v${bins.version}:\n${out}`);
}

function serverSpecs(
  shape: ComposeShape,
  bins: ServerBinaries,
  frontendPort: number,
  pgPort: number,
  security: SecurityFiles | undefined,
  historyShards: number | undefined,
  dbPassword: string,
): ProcessSpec[] {
  const ports = clusterPorts(frontendPort);
  const common: Record<string, string> = {
    ...shape.serverEnv,
    ...(historyShards !== undefined && { NUM_HISTORY_SHARDS: String(historyShards) }),
    ...(security ? serverSecurityEnv(security) : { TILLER_AUTH: 'off' }),
    // Where the compose file's names (postgresql:5432, 0.0.0.0 inside a container) differ on one host:
    POSTGRES_SEEDS: '127.0.0.1',
    // The role that owns only its two databases, and its per-cluster password (./database.ts).
    POSTGRES_USER: DB_USER,
    POSTGRES_PWD: dbPassword,
    DB_PORT: String(pgPort),
    BIND_ON_IP: '127.0.0.1',
    DYNAMIC_CONFIG_FILE_PATH: shape.dynamicConfigFile,
    LOG_LEVEL: process.env.TILLER_CLUSTER_LOG_LEVEL ?? 'warn',
    FRONTEND_GRPC_PORT: String(ports.grpc.frontend),
    FRONTEND_HTTP_PORT: String(ports.frontendHttp),
    HISTORY_GRPC_PORT: String(ports.grpc.history),
    MATCHING_GRPC_PORT: String(ports.grpc.matching),
    WORKER_GRPC_PORT: String(ports.grpc.worker),
    FRONTEND_MEMBERSHIP_PORT: String(ports.membership.frontend),
    HISTORY_MEMBERSHIP_PORT: String(ports.membership.history),
    MATCHING_MEMBERSHIP_PORT: String(ports.membership.matching),
    WORKER_MEMBERSHIP_PORT: String(ports.membership.worker),
  };
  return SERVICES.map((service) => ({
    name: service === 'worker' ? 'temporal-worker' : service,
    role: service === 'worker' ? 'temporal-worker' : service,
    command: bins.server,
    args: ['start', '--service', service],
    env: { ...common, PROMETHEUS_ENDPOINT: `127.0.0.1:${ports.metrics[service]}` },
    cwd: CLUSTER_DIR,
    log: path.join(LOGS, `${service === 'worker' ? 'temporal-worker' : service}.log`),
    ready: { type: 'port', port: ports.grpc[service] },
  }));
}

/**
 * What a client of this cluster sets to connect as `profile` (ours read it through Temporal's envconfig,
 * src/client/connect.ts): the address, namespace and task queue, and on the secured cluster the TOML file and
 * the profile (TLS files and the role's token).
 */
function clientEnv(state: ClusterState, profile: Role): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: state.address,
    TEMPORAL_NAMESPACE: state.namespace,
    TILLER_TASK_QUEUE: state.taskQueue,
    ...(state.security && { TEMPORAL_CONFIG_FILE: state.security.configFile, TEMPORAL_PROFILE: profile }),
  };
}

function connectionOptions(state: ClusterState, profile: Role): ConnectionOptions {
  return temporalSettings(clientEnv(state, profile)).connectionOptions;
}

async function waitForFrontend(options: ConnectionOptions): Promise<Connection> {
  const { address } = options;
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      const connection = await Connection.connect({ ...options, connectTimeout: 2_000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return connection;
      } catch (err) {
        await connection.close();
        throw err;
      }
    } catch (err) {
      if (Date.now() > deadline)
        throw new Error(`the frontend at ${address} did not answer: ${(err as Error).message}`, { cause: err });
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

async function setupNamespace(connection: Connection, namespace: string, log: (line: string) => void): Promise<void> {
  const deadline = Date.now() + 120_000;
  const retry = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    for (;;) {
      try {
        return await fn();
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`${what}: ${(err as Error).message}`, { cause: err });
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };
  await retry('namespace', async () => {
    try {
      await connection.workflowService.describeNamespace({ namespace });
    } catch {
      // Same retention as docker-compose.yml's temporal-setup job (168h).
      await connection.workflowService
        .registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('168h') })
        .catch((err: { code?: number }) => {
          if (err.code !== 6) throw err; // ALREADY_EXISTS
        });
      await connection.workflowService.describeNamespace({ namespace });
    }
  });
  // A namespace just created may answer "not found" to the operator service for a moment.
  await retry('search attributes', async () => {
    const outcome = await ensureSearchAttributes(connection, namespace);
    if (outcome.type !== 'registered') throw new Error(outcome.reason);
    const listed = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = Object.keys(SEARCH_ATTRIBUTES).filter((n) => !(n in (listed.customAttributes ?? {})));
    if (missing.length) throw new Error(`not visible yet: ${missing.join(', ')}`);
  });
  log(`namespace ${namespace}: Tiller's search attributes registered`);
}

/**
 * The workflow bundle, built once per `up` as the Docker image does (Dockerfile): workers then start
 * without webpack — seconds instead of most of a minute on a busy machine, which is what a restarted
 * worker costs in recovery. Workers get it as TILLER_WORKFLOW_BUNDLE.
 */
function buildWorkflowBundle(log: (line: string) => void): string {
  const out = path.join(CLUSTER_DIR, 'workflow-bundle.js');
  const r = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
      path.join(ROOT, 'scripts', 'build-workflow-bundle.ts'),
      out,
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`building the workflow bundle failed:\n${r.stdout}${r.stderr}`);
  fs.chmodSync(out, 0o600);
  log(`workflow bundle: ${out}`);
  return out;
}

function gatewayToken(): { token: string; tokensJson: string } {
  const token = `tiller-cluster-${randomBytes(24).toString('base64url')}`;
  const sha256 = createHash('sha256').update(token).digest('hex');
  const tokensJson = JSON.stringify([
    { name: 'cluster-admin', groups: ['ops'], sha256, scopes: ['read', 'start', 'decide', 'cancel', 'args'] },
  ]);
  return { token, tokensJson };
}

function tillerSpecs(
  shape: ComposeShape,
  opts: Required<Pick<ClusterOptions, 'workers' | 'gateway'>> & ClusterOptions,
  state: ClusterState,
  gateway: { url: string; token: string; tokensJson: string } | undefined,
  frontendPort: number,
  bundle: string,
): ProcessSpec[] {
  const ports = clusterPorts(frontendPort);
  const workspace = path.join(CLUSTER_DIR, 'workspace');
  fs.mkdirSync(workspace, { recursive: true, mode: 0o700 });
  fs.chmodSync(workspace, 0o700);
  const specs: ProcessSpec[] = [];
  const command = opts.workerCommand ?? {
    command: process.execPath,
    args: [path.join(ROOT, 'bin', 'tiller.js'), 'worker'],
    readyPattern: /worker polling task queue/,
  };
  for (let i = 1; i <= opts.workers; i++) {
    specs.push({
      name: `worker-${i}`,
      role: 'tiller-worker',
      command: command.command,
      args: command.args,
      env: {
        ...shape.workerEnv,
        ...clientEnv(state, 'worker'),
        ...(state.security && { TILLER_VERIFIED_APPROVERS: 'on' }), // issue 33: a header-less decision is refused
        TILLER_WORKSPACE: workspace,
        TILLER_WORKFLOW_BUNDLE: bundle,
        TILLER_METRICS_ADDRESS: `127.0.0.1:${ports.workerMetrics(i)}`,
        ...opts.env,
      },
      cwd: ROOT,
      log: path.join(LOGS, `worker-${i}.log`),
      ready: { type: 'line', pattern: (command.readyPattern ?? /ready/).source, flags: command.readyPattern?.flags },
    });
  }
  if (gateway) {
    const args = shape.gatewayArgs.map((a) =>
      a.replace('0.0.0.0', '127.0.0.1').replace(/^8787$/, String(ports.gateway)),
    );
    specs.push({
      name: 'gateway',
      role: 'gateway',
      command: process.execPath,
      args: [path.join(ROOT, 'bin', 'tiller.js'), ...args],
      env: {
        ...shape.gatewayEnv,
        ...clientEnv(state, 'gateway'),
        TILLER_GATEWAY_TOKENS: gateway.tokensJson,
        ...opts.env,
      },
      cwd: ROOT,
      log: path.join(LOGS, 'gateway.log'),
      ready: { type: 'http', url: `${gateway.url}/healthz` },
    });
  }
  return specs;
}

class RunningCluster implements Cluster {
  constructor(
    private state: ClusterState,
    private readonly postgres: Postgres,
  ) {}

  get address() {
    return this.state.address;
  }
  get namespace() {
    return this.state.namespace;
  }
  get description() {
    return `Temporal server v${this.state.serverVersion} on PostgreSQL ${path.basename(path.dirname(this.state.postgres.bin))}, frontend / history / matching / worker as separate processes`;
  }
  get taskQueue() {
    return this.state.taskQueue;
  }
  get gateway() {
    return this.state.gateway;
  }
  get temporalCli() {
    return this.state.temporalCli;
  }
  get secured() {
    return this.state.security !== undefined;
  }
  get security() {
    return this.state.security;
  }
  get ui() {
    return this.state.ui;
  }

  clientEnv(profile: Role): Record<string, string> {
    return clientEnv(this.state, profile);
  }

  async token(request: Omit<TokenRequest, 'namespace' | 'ttlSeconds'> & Partial<TokenRequest>): Promise<string> {
    if (!this.state.security) throw new Error('this cluster runs without authorization (up --insecure): no tokens');
    return signToken(this.state.security.files, { namespace: this.state.namespace, ttlSeconds: 3600, ...request });
  }

  processes(): ClusterProcess[] {
    const pg: ClusterProcess = {
      name: 'postgres',
      role: 'postgres',
      pid: this.postgres.pid(),
      log: this.postgres.logFile,
    };
    return [
      pg,
      ...this.state.processes.map((p) => ({
        name: p.name,
        role: p.role,
        pid: isAlive(p.pid) ? p.pid : undefined,
        log: p.log,
      })),
    ];
  }

  private spec(name: string): ProcessSpec {
    const spec = this.state.processes.find((p) => p.name === name);
    if (!spec) throw new Error(`no process ${name} in this cluster`);
    return spec;
  }

  async kill(name: string, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (name === 'postgres') return this.postgres.stop(signal === 'SIGKILL' ? 'immediate' : 'fast');
    const spec = this.spec(name);
    await stopProcess(spec.pid, signal);
    spec.pid = undefined;
    writeState(this.state);
  }

  async start(name: string): Promise<void> {
    if (name === 'postgres') return this.postgres.start();
    const spec = this.spec(name);
    if (isAlive(spec.pid)) return;
    spec.pid = await startProcess(spec);
    writeState(this.state);
  }

  async down(): Promise<void> {
    // Clients first, then the server, then its database.
    for (const spec of [...this.state.processes].reverse()) {
      await stopProcess(spec.pid, 'SIGTERM', 15_000);
      spec.pid = undefined;
    }
    await this.postgres.stop('fast');
    fs.rmSync(STATE_FILE, { force: true });
  }
}

/** Brings the cluster up (building what is missing) and returns its handle. */
export async function clusterUp(options: ClusterOptions = {}): Promise<Cluster> {
  const log = options.log ?? (() => undefined);
  const opts = { workers: 2, gateway: true, ...options };
  if (readState()) throw new Error('a cluster is already up (`npm run cluster -- status`); bring it down first');
  const shape = readCompose();
  const frontendPort = opts.port ?? 7233;
  const ports = clusterPorts(frontendPort);
  await assertClusterPortsFree(frontendPort, { ...opts, ui: opts.ui === true }, clusterPorts);
  const bins = ensureServerBinaries(shape.serverVersion, log);
  validateDynamicConfig(bins, shape.dynamicConfigFile);
  if (opts.ui && opts.insecure) throw new Error("the UI signs users in with the cluster's tokens: not with --insecure");
  const uiBinary = opts.ui ? ensureUiBinary(uiVersion(), log) : undefined;
  fs.mkdirSync(CLUSTER_DIR, { recursive: true, mode: 0o700 });
  fs.chmodSync(CLUSTER_DIR, 0o700);
  fs.mkdirSync(LOGS, { recursive: true, mode: 0o700 });
  fs.chmodSync(LOGS, 0o700);

  const pgState = {
    bin: ensurePostgres(log),
    home: postgresHome(CLUSTER_DIR),
    port: ports.postgres,
    ...(opts.postgresSettings && { settings: opts.postgresSettings }),
  };
  const db = databasePassword(CLUSTER_DIR);
  const postgres = new Postgres(pgState.bin, { ...pgState, log });
  postgres.init();
  await postgres.start();
  log(`PostgreSQL on 127.0.0.1:${pgState.port}`);
  await prepareDatabase(bins, postgres, db.password, log);

  const namespace = shape.workerEnv.TEMPORAL_NAMESPACE || 'default';
  const taskQueue = shape.workerEnv.TILLER_TASK_QUEUE || 'tiller';
  const address = `127.0.0.1:${ports.grpc.frontend}`;
  const files = opts.insecure ? undefined : ensureSecurity(CLUSTER_DIR, log);
  const security = files && {
    files,
    configFile: await writeProfiles(files, { address, namespace }),
  };
  if (security) log(`Temporal envconfig profiles (worker, gateway, approver, reader, admin): ${security.configFile}`);
  else fs.rmSync(TOML_FILE, { force: true });
  const token = opts.gateway ? gatewayToken() : undefined;
  const gateway = token && { url: `http://127.0.0.1:${ports.gateway}`, ...token };
  const state: ClusterState = {
    serverVersion: shape.serverVersion,
    address,
    namespace,
    taskQueue,
    postgres: pgState,
    ...(gateway && { gateway: { url: gateway.url, token: gateway.token } }),
    temporalCli: temporalCli(),
    ...(security && { security }),
    processes: serverSpecs(shape, bins, frontendPort, pgState.port, files, opts.historyShards, db.password),
  };
  const cluster = new RunningCluster(state, postgres);
  writeState(state);
  try {
    for (const spec of state.processes) {
      spec.pid = await startProcess(spec);
      writeState(state);
      log(`${spec.name}: pid ${spec.pid}`);
    }
    const connection = await waitForFrontend(connectionOptions(state, 'admin'));
    try {
      await setupNamespace(connection, namespace, log);
    } finally {
      await connection.close();
    }
    const bundle = opts.env?.TILLER_WORKFLOW_BUNDLE ?? buildWorkflowBundle(log);
    const tiller = tillerSpecs(shape, opts, state, gateway, frontendPort, bundle);
    state.processes.push(...tiller);
    // Workers start side by side (each loads its workflows: seconds of CPU); all settle before a
    // failure is reported, so `down` knows every pid.
    const started = await Promise.allSettled(
      tiller.map(async (spec) => {
        spec.pid = await startProcess(spec);
        log(`${spec.name}: pid ${spec.pid}`);
      }),
    );
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    writeState(state);
    if (uiBinary && files) {
      const ui = uiSetup({
        binary: uiBinary,
        files,
        clusterDir: CLUSTER_DIR,
        logs: LOGS,
        address,
        namespace,
        frontendPort,
      });
      state.ui = { url: ui.url, oidcUrl: ui.oidcUrl };
      for (const spec of ui.specs) {
        state.processes.push(spec);
        spec.pid = await startProcess(spec);
        writeState(state);
        log(`${spec.name}: pid ${spec.pid}`);
      }
      log(`Temporal UI at ${ui.url} (sign in with a token: npm run cluster -- token reader <you>)`);
    }
    log(`Temporal v${shape.serverVersion} at ${address}, namespace ${namespace}, task queue ${taskQueue}`);
    return cluster;
  } catch (err) {
    await cluster.down().catch(() => undefined);
    throw err;
  }
}

/** A handle on the cluster that `up` left running (from the state file). */
export function attachCluster(): Cluster | undefined {
  const state = readState();
  if (!state) return undefined;
  return new RunningCluster(state, new Postgres(state.postgres.bin, { ...state.postgres, log: () => undefined }));
}
