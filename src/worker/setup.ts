/**
 * From the plugin's options to the activities a worker runs, resolved once and top-down: the options
 * (each given, else from the env, else Tiller's default) → the agents, checked against → the tools, the
 * MCP servers and the model providers → the activities built from all of them. `createTillerPlugin`
 * (src/worker/plugin.ts) calls `setUpWorker` and nothing below it; nothing below imports this module or the
 * plugin back (test/unit/options-path.test.ts). See docs/architecture.md, "The worker's options".
 */
import type OpenAI from 'openai';
import { createActivities } from '../activities';
import { MODEL_NOT_CONFIGURED, modelClientFromEnv, modelConfigured } from '../activities/model-config';
import { providerClients, providersFromEnv, type ProviderConfig } from '../activities/providers';
import { assistant } from '../agents/assistant';
import type { AgentDefinition } from '../agents/define';
import type { TillerHooks } from '../agents/hooks';
import { defaultModel, modelApiFromEnv } from './model-env';
import type { TillerActivities } from '../core/contract';
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

/**
 * The options that say what a worker's activities do: each defaults to the environment, then to
 * Tiller's default. `TillerPluginOptions` (src/worker/plugin.ts) extends them with the worker's own.
 */
export interface WorkerSetupOptions {
  /** Defaults to the demo agent `assistant`. */
  agents?: AgentDefinition[];
  /** Defaults to the demo tools `read_file` and `delete_file`. */
  tools?: ToolDefinition<any>[];
  /** Hooks applied to every agent, after the agent's own. */
  hooks?: TillerHooks[];
  /**
   * MCP servers whose tools agents may use, as `<server>__<tool>` in `tools` or all of them with
   * `mcp: ['<server>']`. Stdio (`{ name, command, args?, env?, cwd? }`) or streamable HTTP
   * (`{ name, url, headers? }`); connected on first use, closed when the worker's `run()` ends — so
   * one plugin serves one worker.
   */
  mcpServers?: McpServerConfig[];
  /** Defaults to a client from `OPENAI_BASE_URL` / `OPENAI_API_KEY` with `maxRetries: 0`. */
  openai?: OpenAI;
  /**
   * The API the default client speaks to agents that do not say (`defineAgent({ api })`): `chat` (Chat
   * Completions) or `responses` (OpenAI's Responses API). Defaults to `TILLER_MODEL_API`, else `chat`.
   */
  api?: ModelApi;
  /**
   * Named OpenAI-compatible model providers an agent picks with `provider`:
   * `{ groq: { baseURL, apiKeyEnv: 'GROQ_API_KEY' }, local: { baseURL: 'http://localhost:11434/v1' } }`
   * (`apiKey` or `apiKeyEnv`). Defaults to `TILLER_PROVIDERS` (the same as JSON). Keys stay in the
   * worker: history, state and logs only hold the provider's name, and failures are redacted.
   */
  providers?: Record<string, ProviderConfig>;
  /** Model for agents that name none; defaults to `TILLER_MODEL`, then gpt-4o-mini. */
  model?: string;
  /** Whether the Tiller search attributes exist on the namespace (see `ensureSearchAttributes`). Default true. */
  searchAttributes?: boolean;
  /**
   * Accept decisions by the `decide` signal as well as the update. Default: true, unless
   * `TILLER_DECIDE_SIGNAL=off`. Off, a signal is recorded as rejected (bounded) and only updates decide —
   * a rejected update never reaches history, so nothing a client sends can grow a turn's history.
   */
  decideSignal?: boolean;
  /**
   * This deployment verifies approvers: its Temporal server checks the `tillerApprover` header of every
   * decision against the caller's token (the secured cluster, `npm run cluster`, and a gateway in front
   * of it). Then a decision without the header — a batch operation, a client around the authorizer — is
   * refused and recorded as DECISION_REJECTED, and the `approver` its body names is never believed.
   * Default: false, unless `TILLER_VERIFIED_APPROVERS=on`. Off where the server checks no header (a
   * dev server): there a header proves nothing, and decisions name their approver in the body.
   */
  verifiedApprovers?: boolean;
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
    defaultModel: opts.model ?? defaultModel(),
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
