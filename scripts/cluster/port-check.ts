/**
 * Before `cluster up` starts anything: every port the cluster will listen on is free, or it stops
 * with which port is taken, what the cluster wanted it for, and a `--port` whose ports are all free
 * (issue 34: with a dev server on 7233, `up` used to fail later with "the frontend … did not answer").
 */
import net from 'node:net';
import { uiPorts } from './ui';

/** What ./index.ts's clusterPorts returns (kept structural: index.ts imports this module). */
export interface ClusterPortMap {
  grpc: Record<string, number>;
  membership: Record<string, number>;
  metrics: Record<string, number>;
  frontendHttp: number;
  postgres: number;
  gateway: number;
  workerMetrics: (i: number) => number;
}

export interface PortCheckOptions {
  workers: number;
  gateway: boolean;
  ui?: boolean;
}

/** Every port a cluster with this frontend port and these options listens on, with what it is for. */
export function clusterPortList(
  frontendPort: number,
  opts: PortCheckOptions,
  portsOf: (frontend: number) => ClusterPortMap,
): { port: number; use: string }[] {
  const p = portsOf(frontendPort);
  const list = [
    ...Object.entries(p.grpc).map(([s, port]) => ({ port, use: `Temporal ${s} gRPC` })),
    ...Object.entries(p.membership).map(([s, port]) => ({ port, use: `Temporal ${s} membership` })),
    ...Object.entries(p.metrics).map(([s, port]) => ({ port, use: `Temporal ${s} metrics` })),
    { port: p.frontendHttp, use: 'Temporal frontend HTTP' },
    { port: p.postgres, use: 'PostgreSQL' },
    ...Array.from({ length: opts.workers }, (_, i) => ({
      port: p.workerMetrics(i + 1),
      use: `worker-${i + 1} metrics`,
    })),
  ];
  if (opts.gateway) list.push({ port: p.gateway, use: 'the gateway' });
  if (opts.ui) {
    const ui = uiPorts(frontendPort);
    list.push({ port: ui.ui, use: 'the Temporal UI' }, { port: ui.oidc, use: "the UI's OIDC provider" });
  }
  return list;
}

/** Whether nothing listens on `port` (binding 127.0.0.1 fails too when something holds 0.0.0.0). */
export function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(false) : reject(err),
    );
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** The ports of `list` something else listens on. */
export async function takenPorts(list: { port: number; use: string }[]): Promise<{ port: number; use: string }[]> {
  const taken = [];
  for (const entry of list) if (!(await portIsFree(entry.port))) taken.push(entry);
  return taken;
}

/**
 * Throws, before anything starts, when a port the cluster needs is taken: which ones, and a frontend
 * port (`--port`) at which every port is free (PostgreSQL's 55432 + offset must stay below 65536).
 */
export async function assertClusterPortsFree(
  frontendPort: number,
  opts: PortCheckOptions,
  portsOf: (frontend: number) => ClusterPortMap,
  candidates: readonly number[] = Array.from({ length: 10 }, (_, k) => 7233 + (k + 1) * 1_000),
): Promise<void> {
  const taken = await takenPorts(clusterPortList(frontendPort, opts, portsOf));
  if (taken.length === 0) return;
  let free: number | undefined;
  for (const candidate of candidates) {
    if (candidate === frontendPort) continue;
    if ((await takenPorts(clusterPortList(candidate, opts, portsOf))).length > 0) continue;
    free = candidate;
    break;
  }
  const lines = taken.map((t) => `  ${t.port} (${t.use})`);
  throw new Error(
    `cannot start the cluster: ${taken.length === 1 ? 'a port it needs is' : 'ports it needs are'} taken by another process:\n` +
      `${lines.join('\n')}\n` +
      `(\`ss -ltnp\` shows which process; a Temporal dev server listens on 7233 by default). ` +
      `Stop it, or choose other ports: every cluster port is offset from the frontend's, so ` +
      `\`npm run cluster -- up --port ${free ?? '<port>'}\`${free === undefined ? '' : ' has all of them free now'}.`,
  );
}
