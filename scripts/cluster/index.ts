/**
 * The production shape on one machine, from docker-compose.yml (see ./compose): PostgreSQL, the
 * Temporal server built from source and run as separate frontend / history / matching / worker
 * processes, the namespace and Tiller's search attributes, N Tiller workers and the gateway.
 *
 * State (pids, how to restart each process, the gateway token) lives in `.tools/cluster/state.json`,
 * so `down` and `status` work from another shell, and a soak's handle can kill and restart any part.
 */
import fs from 'node:fs';
import { ensureServerBinaries } from './binaries';
import { connectionOptions } from './client-env';
import { readCompose } from './compose';
import { databasePassword, prepareDatabase } from './database';
import { setupNamespace, waitForFrontend } from './namespace';
import { ensurePostgres, Postgres, postgresHome } from './postgres';
import { assertClusterPortsFree } from './port-check';
import { clusterPorts } from './ports';
import { startProcess } from './processes';
import { RunningCluster } from './running';
import { ensureSecurity, TOML_FILE, writeProfiles } from './security';
import { serverSpecs, temporalCli, validateDynamicConfig } from './server';
import { CLUSTER_DIR, LOGS, readState, writeState, type ClusterState } from './state';
import { buildWorkflowBundle, gatewayToken, tillerSpecs } from './tiller';
import type { Cluster, ClusterOptions } from './types';
import { ensureUiBinary, uiSetup, uiVersion } from './ui';

export type { Cluster, ClusterOptions, ClusterProcess } from './types';
export { clusterPorts } from './ports';
export { attachCluster } from './running';
export { CLUSTER_DIR, readState } from './state';

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
