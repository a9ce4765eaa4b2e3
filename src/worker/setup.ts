/**
 * From the plugin's options to the activities a worker runs, resolved once and top-down: the options
 * (each given, else from the env, else Tiller's default) → the agents, checked against → the tools, the
 * MCP servers and the model providers → the activities built from all of them. `createTillerPlugin`
 * (src/worker/plugin.ts) calls `setUpWorker` and nothing below it; nothing below imports this module or the
 * plugin back (test/unit/options-path.test.ts). See docs/architecture.md, "The worker's options".
 */
import { createActivities } from '../activities';
import { MODEL_NOT_CONFIGURED, modelClientFromEnv, modelConfigured } from '../activities/model-config';
import { providerClients, providersFromEnv } from '../activities/providers';
import { assistant } from '../agents/assistant';
import { defaultModel, modelApiFromEnv } from './model-env';
import type { TillerActivities } from '../core/contract';
import { McpPool } from '../mcp/pool';
import { defaultTools } from '../tools/files';
import type { TillerPluginOptions } from './options';
import { checkAgents } from './check-agents';

/** What a worker runs: its activities, and the MCP connections they use (the caller closes them). */
export interface WorkerSetup {
  activities: TillerActivities;
  mcp: McpPool | undefined;
}

/** Throws when an agent names a tool, agent, provider or MCP server that is not configured, or when the env is invalid. */
export function setUpWorker(opts: TillerPluginOptions): WorkerSetup {
  // The agents and what they may use.
  const agents = opts.agents ?? [assistant];
  const tools = opts.tools ?? defaultTools();
  const mcp = opts.mcpServers?.length ? new McpPool(opts.mcpServers) : undefined;
  const providers = providerClients(opts.providers ?? providersFromEnv() ?? {});
  checkAgents(agents, tools, providers, mcp);
  // No model: say so now, once; the turns that need one fail at once with the same line (ModelNotConfigured).
  if (!opts.openai && !modelConfigured() && agents.some((a) => a.provider === undefined))
    process.emitWarning(MODEL_NOT_CONFIGURED, { code: 'TILLER_MODEL_NOT_CONFIGURED' });
  // The activities built from them.
  const activities = createActivities({
    agents,
    tools,
    hooks: opts.hooks ?? [],
    openai: opts.openai ?? modelClientFromEnv(),
    api: opts.api ?? modelApiFromEnv(),
    providers,
    model: opts.model ?? defaultModel(),
    searchAttributes: opts.searchAttributes ?? true,
    decideSignal: opts.decideSignal ?? process.env.TILLER_DECIDE_SIGNAL !== 'off',
    verifiedApprovers: opts.verifiedApprovers ?? verifiedApproversFromEnv(),
    ...(mcp && { mcp }),
  });
  return { activities, mcp };
}

/** `TILLER_VERIFIED_APPROVERS`: `on` or `off` (absent: off); anything else is refused, not guessed. */
function verifiedApproversFromEnv(): boolean {
  const value = process.env.TILLER_VERIFIED_APPROVERS;
  if (value === undefined || value === '' || value === 'off') return false;
  if (value === 'on') return true;
  throw new Error(`TILLER_VERIFIED_APPROVERS must be "on" or "off", got ${JSON.stringify(value)}`);
}
