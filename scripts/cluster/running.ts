/** The handle on a running cluster (`Cluster`): its facts, tokens, and each process to kill, start or stop. */
import fs from 'node:fs';
import path from 'node:path';
import { clientEnv } from './client-env';
import { Postgres } from './postgres';
import { isAlive, startProcess, stopProcess, type ProcessSpec } from './processes';
import { signToken, type Role, type TokenRequest } from './security';
import { readState, STATE_FILE, writeState, type ClusterState } from './state';
import type { Cluster, ClusterProcess } from './types';

export class RunningCluster implements Cluster {
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

/** A handle on the cluster that `up` left running (from the state file). */
export function attachCluster(): Cluster | undefined {
  const state = readState();
  if (!state) return undefined;
  return new RunningCluster(state, new Postgres(state.postgres.bin, { ...state.postgres, log: () => undefined }));
}
