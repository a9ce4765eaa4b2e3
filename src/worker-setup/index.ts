/**
 * From the plugin's options to the activities a worker runs, resolved once and top-down: the options
 * (each given, else from the env, else Tiller's default) → the agents, checked against → the tools, the
 * MCP servers and the model providers → the activities built from all of them. `createTillerPlugin`
 * (src/plugin.ts) calls `setUpWorker` and nothing below it; nothing below imports this folder or the
 * plugin back (test/unit/options-path.test.ts). See docs/architecture.md, "The worker's options".
 */
import type OpenAI from 'openai';
import { createActivities } from '../activities';
import { openAIFromEnv } from '../activities/model';
import { providerClients, providersFromEnv, type ProviderConfig } from '../activities/providers';
import { assistant } from '../agents/assistant';
import type { AgentDefinition } from '../agents/define';
import type { TillerHooks } from '../agents/hooks';
import { defaultModel, modelApiFromEnv } from '../config';
import type { TillerActivities } from '../contract';
import type { ModelApi } from '../core/spec';
import type { McpServerConfig } from '../mcp/config';
import { McpPool } from '../mcp/pool';
import type { ToolDefinition } from '../tools/define';
import { fileTools } from '../tools/files';
import { checkAgents } from './check-agents';

/** The demo tools `read_file` and `delete_file`, a worker's tools when it is given none. */
export function defaultTools(): ToolDefinition<any>[] {
  const { readFile, deleteFile } = fileTools();
  return [readFile, deleteFile];
}

/** The options that say what a worker's activities do (`TillerPluginOptions` documents each). */
export interface WorkerSetupOptions {
  agents?: AgentDefinition[];
  tools?: ToolDefinition<any>[];
  hooks?: TillerHooks[];
  mcpServers?: McpServerConfig[];
  openai?: OpenAI;
  api?: ModelApi;
  providers?: Record<string, ProviderConfig>;
  model?: string;
  searchAttributes?: boolean;
  decideSignal?: boolean;
}

/** What a worker runs: its activities, and the MCP connections they use (the caller closes them). */
export interface WorkerSetup {
  activities: TillerActivities;
  mcp: McpPool | undefined;
}

/** Throws when an agent names a tool, agent, provider or MCP server that is not configured, or when the env is invalid. */
export function setUpWorker(opts: WorkerSetupOptions): WorkerSetup {
  // The agents and what they may use.
  const agents = opts.agents ?? [assistant];
  const tools = opts.tools ?? defaultTools();
  const mcp = opts.mcpServers?.length ? new McpPool(opts.mcpServers) : undefined;
  const providers = providerClients(opts.providers ?? providersFromEnv() ?? {});
  checkAgents(agents, tools, providers, mcp);
  // The activities built from them.
  const activities = createActivities({
    agents,
    tools,
    hooks: opts.hooks ?? [],
    openai: opts.openai ?? openAIFromEnv(),
    api: opts.api ?? modelApiFromEnv(),
    providers,
    defaultModel: opts.model ?? defaultModel(),
    searchAttributes: opts.searchAttributes ?? true,
    decideSignal: opts.decideSignal ?? process.env.TILLER_DECIDE_SIGNAL !== 'off',
    ...(mcp && { mcp }),
  });
  return { activities, mcp };
}
