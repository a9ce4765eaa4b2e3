/**
 * Connection settings, following Temporal's own conventions: `TEMPORAL_ADDRESS`,
 * `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`, `TEMPORAL_TLS_*` and `TEMPORAL_PROFILE` /
 * `TEMPORAL_CONFIG_FILE` profiles, all through `@temporalio/envconfig`, plus Tiller's own
 * `TILLER_TASK_QUEUE`; and `connectClient`, a Temporal client for them. The worker reads the same settings
 * (its model's settings, `TILLER_MODEL` and `TILLER_MODEL_API`, are in src/worker/model-env.ts).
 */
import { Client, Connection, type ConnectionOptions } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';
import { decideHeadersInterceptor, tokenIdentity } from './caller';
import { dataConverterFromEnv } from '../codec/encryption';

/** The task queue of workers and clients when `TILLER_TASK_QUEUE` is not set. */
export const DEFAULT_TASK_QUEUE = 'tiller';

export interface TemporalSettings {
  connectionOptions: NativeConnectionOptions & ConnectionOptions;
  address: string;
  namespace: string;
  taskQueue: string;
}

/**
 * Where to reach Temporal, from the environment as the `temporal` CLI reads it (`@temporalio/envconfig`:
 * `TEMPORAL_ADDRESS`, default `localhost:7233`; `TEMPORAL_NAMESPACE`, default `default`; TLS, API key,
 * profiles) and the task queue from `TILLER_TASK_QUEUE`.
 */
export function temporalSettings(env: NodeJS.ProcessEnv = process.env): TemporalSettings {
  const loaded = loadClientConnectConfig({ overrideEnvVars: env as Record<string, string> });
  const address = loaded.connectionOptions.address ?? 'localhost:7233';
  return {
    connectionOptions: { ...loaded.connectionOptions, address } as NativeConnectionOptions & ConnectionOptions,
    address,
    namespace: loaded.namespace ?? 'default',
    taskQueue: env.TILLER_TASK_QUEUE || DEFAULT_TASK_QUEUE,
  };
}

/**
 * A Temporal `Client` for those settings, with the payload codec from `TILLER_ENCRYPTION_KEYS`; `identity`
 * names the client in the history of what it sends (the audit reads its channel there: src/audit/channel.ts).
 */
export async function connectClient(settings = temporalSettings(), identity?: string): Promise<Client> {
  const connection = await Connection.connect({ ...settings.connectionOptions, connectTimeout: '5s' });
  const dataConverter = dataConverterFromEnv();
  // With a token of the secured cluster, a decision names the token's subject (src/client/caller.ts).
  const token = tokenIdentity(settings.connectionOptions.apiKey);
  return new Client({
    connection,
    namespace: settings.namespace,
    ...(identity !== undefined && { identity }),
    ...(dataConverter && { dataConverter }),
    ...(token && { interceptors: { workflow: [decideHeadersInterceptor(token)] } }),
  });
}
