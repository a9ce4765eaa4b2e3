/**
 * The cluster's state file, `.tools/cluster/state.json` (or under TILLER_CLUSTER_DIR): pids, how to
 * restart each process, the gateway token, so `down` and `status` work from another shell.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './compose';
import type { ProcessSpec } from './processes';
import type { SecurityFiles } from './security';

/** The cluster's private directory (0700): `.tools/cluster`, or TILLER_CLUSTER_DIR (two clusters on one machine). */
export const CLUSTER_DIR = path.resolve(process.env.TILLER_CLUSTER_DIR || path.join(ROOT, '.tools', 'cluster'));
export const STATE_FILE = path.join(CLUSTER_DIR, 'state.json');
export const LOGS = path.join(CLUSTER_DIR, 'logs');

export interface ClusterState {
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

export function writeState(state: ClusterState): void {
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
