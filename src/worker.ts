/**
 * `createWorker`: one place where a user plugs in agents, tools and hooks. Returns a Worker on the
 * Tiller task queue with the Tiller plugin (src/plugin.ts: workflows, activities, tracing, MCP
 * lifecycle) first among its plugins; `Worker.create({ plugins: [createTillerPlugin(…)] })` is the
 * same without the connection and task queue defaults.
 */
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { temporalSettings } from './config';
import { createTillerPlugin, type TillerPluginOptions } from './plugin';

export { defaultTools, PRELOAD_MODULES, workflowsPath } from './plugin';

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

export async function createWorker(opts: CreateWorkerOptions = {}): Promise<Worker> {
  const settings = temporalSettings();
  const { connection, namespace, taskQueue, worker, ...tiller } = opts;
  const plugin = createTillerPlugin(tiller);
  const { plugins = [], ...extra } = worker ?? {};
  return Worker.create({
    connection: connection ?? (await NativeConnection.connect(settings.connectionOptions)),
    namespace: namespace ?? settings.namespace,
    taskQueue: taskQueue ?? settings.taskQueue,
    ...extra,
    plugins: [plugin, ...plugins],
  });
}
