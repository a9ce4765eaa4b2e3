/**
 * Where the soak runs: `dev` (a local dev server, ./dev-cluster.ts) or `cluster` (the production shape,
 * `clusterUp` from scripts/cluster). The soak itself only sees
 * the `Cluster` handle.
 */
import type { Cluster, ClusterOptions } from '../cluster/types';
import { clusterUp } from '../cluster/index';
import { startDevCluster } from './dev-cluster';

export type TargetName = 'dev' | 'cluster';

export async function openTarget(target: TargetName, cli: string, opts: ClusterOptions): Promise<Cluster> {
  if (target === 'dev') return startDevCluster(cli, opts);
  return clusterUp(opts);
}
