/** The Temporal server's processes (frontend, history, matching, worker), its dynamic config's check, and the CLI. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { ServerBinaries } from './binaries';
import type { ComposeShape } from './compose';
import { DB_USER } from './database';
import { clusterPorts, SERVICES } from './ports';
import type { ProcessSpec } from './processes';
import { serverSecurityEnv, type SecurityFiles } from './security';
import { CLUSTER_DIR, LOGS } from './state';

export function temporalCli(): string {
  // Plain CommonJS, shared with the test suite's setup: finds or installs the `temporal` CLI.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ensureTemporal } = require('../ensure-temporal.js') as {
    ensureTemporal(o: { quiet: boolean; needTestServer: boolean }): { cli: string };
  };
  return ensureTemporal({ quiet: true, needTestServer: false }).cli;
}

export function validateDynamicConfig(bins: ServerBinaries, file: string): void {
  const r = spawnSync(bins.server, ['validate-dynamic-config', file], { encoding: 'utf8' });
  const out = `${r.stdout}${r.stderr}`;
  // It prints the file's name, then `warning: unregistered key "…"` or an error per bad key (and still
  // exits 0); at run time the server silently ignores a key it does not know.
  if (r.status !== 0 || /warning|error|unregistered|invalid/i.test(out))
    throw new Error(`${file} does not validate against Temporal server v${bins.version}:\n${out}`);
}

export function serverSpecs(
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
