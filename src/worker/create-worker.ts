/**
 * `createWorker`: one place where a user plugs in agents, tools and hooks. Returns a Worker on the
 * Tiller task queue with the Tiller plugin (src/worker/plugin.ts: workflows, activities, tracing, MCP
 * lifecycle) first among its plugins; `Worker.create({ plugins: [createTillerPlugin(…)] })` is the
 * same without the connection and task queue defaults (and without the search attribute check).
 */
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { temporalSettings } from '../client/connect';
import type { TillerPluginOptions } from './options';
import { createTillerPlugin } from './plugin';
import { requireSearchAttributes } from './search-attributes';

/** {@link createWorker}'s options: Tiller's (declared in ./options.ts), and where the worker runs. */
export interface CreateWorkerOptions extends TillerPluginOptions {
  /** Defaults to a connection from the Temporal env config (`TEMPORAL_ADDRESS`, profiles, …). */
  connection?: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /**
   * Any other Temporal worker option (cache size, concurrency, sticky timeout, …); its `plugins` run
   * after Tiller's.
   */
  worker?: Partial<Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities'>>;
}

/**
 * A ready-to-run Tiller worker: connects to Temporal (`TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE` or the
 * options), checks Tiller's search attributes, and registers the turn and session workflows with the
 * activities for your agents and tools. `await worker.run()` serves until shut down.
 */
export async function createWorker(opts: CreateWorkerOptions = {}): Promise<Worker> {
  const settings = temporalSettings();
  const { connection: given, namespace = settings.namespace, taskQueue, worker, ...tiller } = opts;
  const plugin = createTillerPlugin(tiller);
  const { plugins = [], ...extra } = worker ?? {};
  const connection = given ?? (await NativeConnection.connect(settings.connectionOptions));
  try {
    if (tiller.searchAttributes === undefined) await requireSearchAttributes(connection, namespace);
    return await Worker.create({
      connection,
      namespace,
      taskQueue: taskQueue ?? settings.taskQueue,
      ...extra,
      plugins: [plugin, ...plugins],
    });
  } catch (err) {
    if (!given) await connection.close().catch(() => undefined);
    throw err;
  }
}
