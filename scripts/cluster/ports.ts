/** The cluster's ports: the Temporal services' and the rest, offset together from the frontend's. */

/** The Temporal services, in start order (history owns the shards the others route to). */
export const SERVICES = ['history', 'matching', 'frontend', 'worker'] as const;
export type Service = (typeof SERVICES)[number];

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

/**
 * The frontend ports at which every port of the cluster is one a user may bind (1024–65535): PostgreSQL's
 * is the highest (55432 + offset), membership's the lowest (6933 + offset). Outside it the port check
 * itself would fail on a port that cannot exist.
 */
export function frontendPortRange(): { min: number; max: number } {
  const p = clusterPorts(7233);
  const all = [
    ...Object.values(p.grpc),
    ...Object.values(p.membership),
    ...Object.values(p.metrics),
    p.frontendHttp,
    p.postgres,
    p.gateway,
    p.workerMetrics(1),
  ];
  return { min: 7233 + 1024 - Math.min(...all), max: 7233 + 65535 - Math.max(...all) };
}
