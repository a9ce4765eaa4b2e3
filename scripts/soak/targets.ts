/**
 * Where the soak runs: `dev` (a local dev server, ./dev-cluster.ts) or `cluster` (the production shape,
 * `clusterUp` from scripts/cluster — wired here once that command exists). The soak itself only sees
 * the `Cluster` handle.
 */
import type { Cluster, ClusterOptions } from '../cluster/types';
import { startDevCluster } from './dev-cluster';

export type TargetName = 'dev' | 'cluster';

export async function openTarget(target: TargetName, cli: string, opts: ClusterOptions): Promise<Cluster> {
  if (target === 'dev') return startDevCluster(cli, opts);
  // To wire: `return (await import('../cluster/index')).clusterUp(opts);`
  throw new Error(
    'cluster target not available yet: scripts/cluster/index.ts (clusterUp) is not merged; use --target dev',
  );
}
