/**
 * Connection settings, following Temporal's own conventions: `TEMPORAL_ADDRESS`,
 * `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`, `TEMPORAL_TLS_*` and `TEMPORAL_PROFILE` /
 * `TEMPORAL_CONFIG_FILE` profiles, all through `@temporalio/envconfig`. Plus Tiller's own
 * `TILLER_TASK_QUEUE`, `TILLER_MODEL` and `TILLER_MODEL_API`.
 */
import { Client, Connection, type ConnectionOptions } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';
import { decideHeadersInterceptor, tokenIdentity } from './client/caller';
import { dataConverterFromEnv } from './codec/encryption';
import type { ModelApi } from './core/spec';

/** The task queue of workers and clients when `TILLER_TASK_QUEUE` is not set. */
export const DEFAULT_TASK_QUEUE = 'tiller';
export const DEFAULT_MODEL = 'gpt-4o-mini';

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

export function defaultModel(env: NodeJS.ProcessEnv = process.env): string {
  return env.TILLER_MODEL || DEFAULT_MODEL;
}

/** `TILLER_MODEL_API`: the API the default model client speaks (`chat` or `responses`); anything else is refused. */
export function modelApiFromEnv(env: NodeJS.ProcessEnv = process.env): ModelApi | undefined {
  const api = env.TILLER_MODEL_API?.trim();
  if (!api) return undefined;
  if (api === 'chat' || api === 'responses') return api;
  throw new Error(`TILLER_MODEL_API must be chat or responses (not ${JSON.stringify(api.slice(0, 40))})`);
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
