/**
 * `createWorker`: one place where a user plugs in agents, tools and hooks. Returns a Worker on the
 * Tiller task queue with the Tiller plugin (src/worker/plugin.ts: workflows, activities, tracing, MCP
 * lifecycle) first among its plugins; `Worker.create({ plugins: [createTillerPlugin(…)] })` is the
 * same without the connection and task queue defaults (and without the search attribute check).
 */
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { temporalSettings } from '../client/connect';
import { createTillerPlugin, type TillerPluginOptions } from './plugin';
import { ensureSearchAttributes, type OperatorConnection } from './search-attributes';

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
  /**
   * Tiller's search attributes (`TillerStatus`, …) on the namespace. Absent (the default): the worker
   * checks them at start and registers the missing ones where the server allows it (as `tiller setup`
   * does); where it does not, `createWorker` throws {@link SearchAttributesMissingError}, naming the command
   * to run. `true`: they are registered, do not check (e.g. a Temporal Cloud namespace set up with
   * `tcld`, where this client may not list them). `false`: run without them (turns work; `tiller
   * pending` and the UI cannot find waiting turns).
   */
  searchAttributes?: boolean;
}

/** `createWorker` refused to start: the namespace lacks Tiller's search attributes and they could not be registered. */
export class SearchAttributesMissingError extends Error {
  override readonly name = 'SearchAttributesMissingError';
  constructor(
    readonly namespace: string,
    readonly missing: readonly string[],
    readonly reason: string,
  ) {
    super(
      `namespace ${namespace} lacks Tiller's search attributes (${missing.join(', ') || 'could not list them'}) ` +
        `and this worker could not register them: ${reason}. ` +
        `Run \`TEMPORAL_NAMESPACE=${namespace} npx tiller setup\` (or on Temporal Cloud add them in the namespace ` +
        `settings or with tcld), then start the worker again; pass \`searchAttributes: true\` if they are ` +
        `registered and this client may not list them, or \`searchAttributes: false\` to run without them ` +
        `(turns work, but \`tiller pending\` and the UI cannot find waiting turns).`,
    );
  }
}

/** @deprecated Renamed {@link SearchAttributesMissingError} (errors end in `Error`); this alias goes in 0.5. */
export const SearchAttributesMissing = SearchAttributesMissingError;
/** @deprecated Renamed {@link SearchAttributesMissingError}; this alias goes in 0.5. */
export type SearchAttributesMissing = SearchAttributesMissingError;

/**
 * Registers Tiller's missing search attributes on `namespace`, or throws {@link SearchAttributesMissingError}:
 * without them every turn's workflow task would fail with `BadSearchAttributes` and retry forever.
 */
export async function requireSearchAttributes(connection: OperatorConnection, namespace: string): Promise<string[]> {
  let outcome;
  try {
    outcome = await ensureSearchAttributes(connection, namespace);
  } catch (err) {
    throw new SearchAttributesMissingError(namespace, [], `listing them failed: ${(err as Error).message}`);
  }
  if (outcome.type === 'unavailable')
    throw new SearchAttributesMissingError(namespace, outcome.missing, outcome.reason);
  return outcome.added;
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
