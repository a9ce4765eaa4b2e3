/** How a client connects to the cluster, from its state. */
import type { ConnectionOptions } from '@temporalio/client';
import { temporalSettings } from '../../src/client/connect';
import type { Role } from './security';
import type { ClusterState } from './state';

/**
 * What a client of this cluster sets to connect as `profile` (ours read it through Temporal's envconfig,
 * src/client/connect.ts): the address, namespace and task queue, and on the secured cluster the TOML file and
 * the profile (TLS files and the role's token).
 */
export function clientEnv(state: ClusterState, profile: Role): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: state.address,
    TEMPORAL_NAMESPACE: state.namespace,
    TILLER_TASK_QUEUE: state.taskQueue,
    ...(state.security && { TEMPORAL_CONFIG_FILE: state.security.configFile, TEMPORAL_PROFILE: profile }),
  };
}

export function connectionOptions(state: ClusterState, profile: Role): ConnectionOptions {
  return temporalSettings(clientEnv(state, profile)).connectionOptions;
}
