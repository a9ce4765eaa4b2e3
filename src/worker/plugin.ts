/**
 * Tiller as a Temporal worker plugin (`@temporalio/plugin`'s `SimplePlugin`), to combine with other
 * plugins on a worker of your own:
 *
 *   Worker.create({ connection, taskQueue, plugins: [createTillerPlugin({ agents, tools }), otherPlugin] })
 *
 * It brings Tiller's workflows, the activities built from agents, tools, hooks, the model client and
 * the MCP servers, the tracing interceptors and span sink, the live-text heartbeat interval, the
 * payload codec from env, the workflow cache's size from a memory budget, preloaded shared modules in
 * bundles it builds, and the MCP connections' lifecycle (closed when the worker's `run()` ends).
 * `createWorker` is this plugin on a worker with Tiller's connection and task queue defaults.
 *
 * Every setting is layered: the option given here, else the env, else a built-in default. Worker
 * options the user sets themselves (in `Worker.create` or an earlier plugin) win over the plugin's
 * defaults: the workflows, the data converter, `maxHeartbeatThrottleInterval`, `maxCachedWorkflows`
 * (sized from a memory budget: `workflowCacheMiB`), a sink of the same name.
 */
import { SimplePlugin } from '@temporalio/plugin';
import type { BundleOptions, ReplayWorkerOptions, WorkerOptions } from '@temporalio/worker';
import { LIVE_TEXT_HEARTBEAT_MS } from '../core/live-text';
import { dataConverterFromEnv, workerCodecOptions } from '../codec/encryption';
import { assertBundleEncodesFailures, withWellFormedFailures } from '../codec/encoded-failures';
import { withPayloadGuard } from '../codec/guard';
import type { McpPool } from '../mcp/pool';
import { tracingFromEnv, tracingWorkerOptions } from '../observability/tracing';
import type { TillerPluginOptions } from './options';
import { setUpWorker } from './setup';

/** Tiller's workflows, to bundle (`bundleWorkflowCode({ workflowsPath, plugins: [tillerPlugin] })`). */
export const workflowsPath = require.resolve('../workflows');

/**
 * Bundle option `preloadModules` for Tiller's workflows (src/workflows/preload.ts): zod and Tiller's
 * schemas, which every cached turn would otherwise hold its own copy of (zod alone was about 1 MiB of RSS
 * a turn; the schemas, half of what a paused turn still held in the workflow thread's heap). The
 * plugin adds it to bundles built with it; pass it to `bundleWorkflowCode` yourself for a bundle built
 * without the plugin.
 */
export const PRELOAD_MODULES: readonly string[] = [require.resolve('../workflows/preload')];

/**
 * What one cached turn costs a worker, in MiB of RSS: measured by the bench as (paused − idle) ÷ cached
 * (BENCHMARKS.md, paused turns): 0.59 at 400 turns and 0.69 at 10,000 with PRELOAD_MODULES, rounded up.
 */
export const CACHED_TURN_MIB = 0.75;
/** The workflow cache's default memory budget, in MiB (`workflowCacheMiB`, `TILLER_WORKFLOW_CACHE_MB`). */
export const DEFAULT_WORKFLOW_CACHE_MIB = 384;

/** `maxCachedWorkflows` for a memory budget: as many turns as fit, at least 10. */
export function workflowCacheSize(budgetMiB: number): number {
  return Math.max(10, Math.floor(budgetMiB / CACHED_TURN_MIB));
}

/** The budget from the option, else `TILLER_WORKFLOW_CACHE_MB`, else the default; throws when not a positive number. */
function workflowCacheBudget(option: number | undefined): number {
  const env = process.env.TILLER_WORKFLOW_CACHE_MB;
  const budget = option ?? (env !== undefined && env !== '' ? Number(env) : DEFAULT_WORKFLOW_CACHE_MIB);
  if (!Number.isFinite(budget) || budget <= 0) {
    throw new Error(`the workflow cache budget must be a positive number of MiB, got ${option ?? env}`);
  }
  return budget;
}

/**
 * Tiller as a Temporal worker plugin: its workflows, activities, tracing interceptors, payload codec and
 * workflow cache size on a worker, and the MCP connections closed when the worker's run ends.
 */
export class TillerPlugin extends SimplePlugin {
  /** The MCP connections, when `mcpServers` are configured; closed when the worker's `run()` ends. */
  readonly mcp: McpPool | undefined;
  private readonly workflowBundle: WorkerOptions['workflowBundle'];
  private readonly dataConverter: WorkerOptions['dataConverter'];
  private readonly traced: Pick<WorkerOptions, 'interceptors' | 'sinks'> | undefined;
  /** `maxCachedWorkflows` unless the worker sets it (see `workflowCacheMiB`). */
  readonly maxCachedWorkflows: number;

  /** Throws when an agent names a tool or MCP server that is not configured, or when the env is invalid. */
  constructor(opts: TillerPluginOptions = {}) {
    // Agents, tools, MCP servers and providers, resolved into activities in one place (src/worker/setup.ts).
    const { activities, mcp } = setUpWorker(opts);
    super({
      name: 'tiller',
      // Added to the worker's own activities.
      activities,
      // Closes the MCP connections (ending stdio servers' processes) however the worker's run ends.
      ...(mcp && {
        runContext: async (next: () => Promise<void>) => {
          try {
            await next();
          } finally {
            await mcp.close();
          }
        },
      }),
    });
    this.mcp = mcp;
    this.maxCachedWorkflows = workflowCacheSize(workflowCacheBudget(opts.workflowCacheMiB));
    this.workflowBundle = opts.workflowBundle;
    // Always guarded: a payload the converter cannot read is refused, not a wedged workflow task.
    // And with well-formed failures unless it names its own converter (src/codec/failure-strings.ts).
    this.dataConverter = withWellFormedFailures(
      withPayloadGuard(opts.dataConverter ?? dataConverterFromEnv(process.env, workerCodecOptions())),
    );
    const tracing = opts.tracing === undefined ? tracingFromEnv() : opts.tracing || undefined;
    this.traced = tracing && tracingWorkerOptions(tracing);
  }

  override configureWorker(options: WorkerOptions): WorkerOptions {
    const tiller = this.withTiller(options);
    assertBundleEncodesFailures(tiller.workflowBundle, tiller.dataConverter);
    return super.configureWorker({
      ...tiller,
      // Heartbeats carry a streaming model call's text to followers (src/core/live-text.ts): send
      // them at most every 100 ms rather than 0.8 × the heartbeat timeout.
      maxHeartbeatThrottleInterval: options.maxHeartbeatThrottleInterval ?? LIVE_TEXT_HEARTBEAT_MS,
      // A cache sized from a memory budget, not from the heap limit (see `workflowCacheMiB`).
      maxCachedWorkflows: options.maxCachedWorkflows ?? this.maxCachedWorkflows,
    });
  }

  override configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    return super.configureReplayWorker(this.withTiller(options));
  }

  /**
   * A bundle built with this plugin preloads PRELOAD_MODULES, and contains the tracing workflow
   * interceptors when tracing is on and the encoding failure converter when encryption is.
   */
  override configureBundler(options: BundleOptions): BundleOptions {
    const modules = this.traced?.interceptors?.workflowModules ?? [];
    const preloadModules = [...new Set([...PRELOAD_MODULES, ...(options.preloadModules ?? [])])];
    const failureConverterPath = options.failureConverterPath ?? this.dataConverter?.failureConverterPath;
    return super.configureBundler({
      ...options,
      preloadModules,
      ...(failureConverterPath && { failureConverterPath }),
      ...(modules.length && {
        workflowInterceptorModules: [...modules, ...(options.workflowInterceptorModules ?? [])],
      }),
    });
  }

  /** The workflows, data converter, and with tracing the interceptors and the span sink (Tiller's first). */
  private withTiller<T extends WorkerOptions | ReplayWorkerOptions>(options: T): T {
    const workflowBundle = options.workflowBundle ?? this.workflowBundle;
    const dataConverter = options.dataConverter
      ? withWellFormedFailures(withPayloadGuard(options.dataConverter))
      : this.dataConverter;
    const traced = this.traced;
    return {
      ...options,
      ...(workflowBundle ? { workflowBundle } : { workflowsPath: options.workflowsPath ?? workflowsPath }),
      ...(dataConverter && { dataConverter }),
      ...(traced && {
        interceptors: {
          ...options.interceptors,
          activity: [...(traced.interceptors?.activity ?? []), ...(options.interceptors?.activity ?? [])],
          // A prebuilt bundle must already contain the module (see WORKFLOW_TRACING_MODULE).
          ...(!workflowBundle && {
            workflowModules: [
              ...(traced.interceptors?.workflowModules ?? []),
              ...(options.interceptors?.workflowModules ?? []),
            ],
          }),
        },
        sinks: { ...traced.sinks, ...options.sinks },
      }),
    };
  }
}

/** Tiller as a worker plugin; see {@link TillerPluginOptions} for the options and their defaults. */
export function createTillerPlugin(opts: TillerPluginOptions = {}): TillerPlugin {
  return new TillerPlugin(opts);
}
