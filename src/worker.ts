/**
 * `createWorker`: one place where a user plugs in agents, tools and hooks. Bundles the workflows (or
 * takes a prebuilt bundle), builds the activities from their dependencies and returns a Worker on
 * the Tiller task queue.
 */
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type OpenAI from 'openai';
import { createActivities } from './activities';
import { openAIFromEnv } from './activities/model';
import type { AgentDefinition } from './agents/define';
import { assistant } from './agents/assistant';
import type { TillerHooks } from './agents/hooks';
import { LIVE_TEXT_HEARTBEAT_MS } from './core/live-text';
import { dataConverterFromEnv } from './codec/encryption';
import { defaultModel, temporalSettings } from './config';
import type { McpServerConfig } from './mcp/config';
import { McpPool } from './mcp/pool';
import { tracingFromEnv, tracingWorkerOptions, type Tracing } from './observability/tracing';
import type { ToolDefinition } from './tools/define';
import { fileTools } from './tools/files';

export interface CreateWorkerOptions {
  /** Defaults to a connection from the Temporal env config (`TEMPORAL_ADDRESS`, profiles, …). */
  connection?: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /** Defaults to the demo agent `assistant`. */
  agents?: AgentDefinition[];
  /** Defaults to the demo tools `read_file` and `delete_file`. */
  tools?: ToolDefinition<any>[];
  /** Hooks applied to every agent, after the agent's own. */
  hooks?: TillerHooks[];
  /**
   * MCP servers whose tools agents may use, as `<server>__<tool>` in `tools` or all of them with
   * `mcp: ['<server>']`. Stdio (`{ name, command, args?, env?, cwd? }`) or streamable HTTP
   * (`{ name, url, headers? }`); connected on first use, closed when the worker's `run()` ends.
   */
  mcpServers?: McpServerConfig[];
  /**
   * OpenTelemetry tracing (see src/observability/tracing.ts); defaults to the standard `OTEL_*` env
   * (off unless `OTEL_TRACES_EXPORTER` is set); `false` turns it off.
   */
  tracing?: Tracing | false;
  /** Defaults to a client from `OPENAI_BASE_URL` / `OPENAI_API_KEY` with `maxRetries: 0`. */
  openai?: OpenAI;
  /** Model for agents that name none; defaults to `TILLER_MODEL`, then gpt-4o-mini. */
  model?: string;
  /** Whether the Tiller search attributes exist on the namespace (see `ensureSearchAttributes`). Default true. */
  searchAttributes?: boolean;
  /** A prebuilt workflow bundle (`bundleWorkflowCode`), to skip bundling on every start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Payload encryption and conversion; defaults to `TILLER_ENCRYPTION_KEYS` (see src/codec/encryption.ts). */
  dataConverter?: WorkerOptions['dataConverter'];
  /** Any other Temporal worker option (cache size, concurrency, sticky timeout, …). */
  worker?: Partial<Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities'>>;
}

export const workflowsPath = require.resolve('./workflows');

export function defaultTools(): ToolDefinition<any>[] {
  const { readFile, deleteFile } = fileTools();
  return [readFile, deleteFile];
}

export async function createWorker(opts: CreateWorkerOptions = {}): Promise<Worker> {
  const settings = temporalSettings();
  const agents = opts.agents ?? [assistant];
  const tools = opts.tools ?? defaultTools();
  const toolNames = new Set(tools.map((t) => t.name));
  const mcp = opts.mcpServers?.length ? new McpPool(opts.mcpServers) : undefined;
  for (const agent of agents) {
    // MCP tools are checked against their server's list when a turn starts.
    const missing = agent.tools.filter((t) => !toolNames.has(t) && !mcp?.owns(t));
    if (missing.length) throw new Error(`agent ${agent.name} uses unregistered tools: ${missing.join(', ')}`);
    const servers = (agent.mcp ?? []).filter((s) => !mcp?.servers.has(s));
    if (servers.length) throw new Error(`agent ${agent.name} uses unconfigured MCP servers: ${servers.join(', ')}`);
  }
  const activities = createActivities({
    agents,
    tools,
    hooks: opts.hooks ?? [],
    openai: opts.openai ?? openAIFromEnv(),
    defaultModel: opts.model ?? defaultModel(),
    searchAttributes: opts.searchAttributes ?? true,
    ...(mcp && { mcp }),
  });
  const dataConverter = opts.dataConverter ?? dataConverterFromEnv();
  const tracing = opts.tracing === undefined ? tracingFromEnv() : opts.tracing || undefined;
  const traced = tracing && tracingWorkerOptions(tracing);
  const extra = opts.worker ?? {};
  const worker = await Worker.create({
    connection: opts.connection ?? (await NativeConnection.connect(settings.connectionOptions)),
    namespace: opts.namespace ?? settings.namespace,
    taskQueue: opts.taskQueue ?? settings.taskQueue,
    ...(opts.workflowBundle ? { workflowBundle: opts.workflowBundle } : { workflowsPath }),
    activities,
    ...(dataConverter && { dataConverter }),
    // Heartbeats carry a streaming model call's text to followers (src/core/live-text.ts): send
    // them at most every 100 ms rather than 0.8 × the heartbeat timeout.
    maxHeartbeatThrottleInterval: LIVE_TEXT_HEARTBEAT_MS,
    ...extra,
    ...(traced && {
      interceptors: {
        ...extra.interceptors,
        activity: [...(traced.interceptors?.activity ?? []), ...(extra.interceptors?.activity ?? [])],
        // A prebuilt bundle must already contain the module (see WORKFLOW_TRACING_MODULE).
        ...(!opts.workflowBundle && {
          workflowModules: [
            ...(traced.interceptors?.workflowModules ?? []),
            ...(extra.interceptors?.workflowModules ?? []),
          ],
        }),
      },
      sinks: { ...traced.sinks, ...extra.sinks },
    }),
  });
  if (mcp) closeMcpWithWorker(worker, mcp);
  return worker;
}

/** Closes the MCP connections (ending stdio servers' processes) once the worker stops running. */
function closeMcpWithWorker(worker: Worker, mcp: McpPool): void {
  const run = worker.run.bind(worker);
  worker.run = () => run().finally(() => mcp.close());
}
