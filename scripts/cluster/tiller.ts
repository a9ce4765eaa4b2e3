/** Tiller's processes on the cluster: the workflow bundle they share, N workers and the gateway (with its token). */
import { createHash, randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { clientEnv } from './client-env';
import { ROOT, type ComposeShape } from './compose';
import { clusterPorts } from './ports';
import type { ProcessSpec } from './processes';
import { CLUSTER_DIR, LOGS, type ClusterState } from './state';
import type { ClusterOptions } from './types';

/**
 * The workflow bundle, built once per `up` as the Docker image does (Dockerfile): workers then start
 * without webpack — seconds instead of most of a minute on a busy machine, which is what a restarted
 * worker costs in recovery. Workers get it as TILLER_WORKFLOW_BUNDLE.
 */
export function buildWorkflowBundle(log: (line: string) => void): string {
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

export function gatewayToken(): { token: string; tokensJson: string } {
  const token = `tiller-cluster-${randomBytes(24).toString('base64url')}`;
  const sha256 = createHash('sha256').update(token).digest('hex');
  const tokensJson = JSON.stringify([
    { name: 'cluster-admin', groups: ['ops'], sha256, scopes: ['read', 'start', 'decide', 'cancel', 'args'] },
  ]);
  return { token, tokensJson };
}

export function tillerSpecs(
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
