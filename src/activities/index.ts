/**
 * All of Tiller's activities, built from their dependencies (no module-level state), so a test or a
 * custom worker injects its own model client, tools and hooks. They implement the contract's
 * `TillerActivities` (src/core/contract/activities.ts), which is what the workflows call.
 */
import { Context } from '@temporalio/activity';
import type OpenAI from 'openai';
import type { TillerActivities } from '../core/contract';
import { checkAgentOptions, type AgentDefinition } from '../agents/define';
import type { TillerHooks } from '../agents/hooks';
import type { McpPool } from '../mcp/pool';
import type { ToolDefinition } from '../tools/define';
import type { AgentActivityDeps } from './agent-spec';
import { createAgentActivities } from './agents';
import { createGuardrailActivities } from './guardrails';
import { createHandoffActivities } from './handoffs';
import { ConversationCache } from './conversation-cache';
import { createModelActivities, modelEndpoints, type ModelEndpoint } from './model';
import type { ModelApi } from '../core/spec';
import { createToolActivities } from './tools';
import { createApprovalHookActivities } from './approval-hooks';

/**
 * The worker's options, resolved (src/worker/setup.ts): each field is the value of the option of the
 * same name (`TillerPluginOptions`, src/worker/options.ts, where each is documented) after its default.
 * Two are built from their option: `providers` (the endpoints of `providers`) and `mcp` (the pool of
 * `mcpServers`, which the caller owns and closes).
 */
export interface ActivityDeps {
  agents: readonly AgentDefinition[];
  tools: readonly ToolDefinition<any>[];
  hooks?: readonly TillerHooks[];
  openai: OpenAI;
  api?: ModelApi;
  providers?: ReadonlyMap<string, OpenAI | ModelEndpoint>;
  model: string;
  searchAttributes: boolean;
  decideSignal?: boolean;
  verifiedApprovers?: boolean;
  mcp?: McpPool;
}

export function createActivities(deps: ActivityDeps): TillerActivities {
  // defineAgent's checks of guardrails, handoffs and the context window, for agents built without it.
  for (const agent of deps.agents) checkAgentOptions(agent);
  const agents = new Map(deps.agents.map((a) => [a.name, a]));
  const tools = new Map<string, ToolDefinition>(deps.tools.map((t) => [t.name, t as ToolDefinition]));
  // A sub-agent with `inherit: true` also runs its ancestors' hooks (nearest first); each hook once.
  const hooksFor = (agent: string, inheritsFrom: readonly string[] = []) => [
    ...new Set([...[agent, ...inheritsFrom].flatMap((a) => agents.get(a)?.hooks ?? []), ...(deps.hooks ?? [])]),
  ];
  // The conversations the model activity has read, and the tool results it will read next.
  const conversations = new ConversationCache();
  const retries = new Map([...(deps.providers ?? [])].map(([name, p]) => [name, 'retry' in p ? p.retry : undefined]));
  const agentDeps: AgentActivityDeps = {
    agents,
    modelRetryFor: (provider) => (provider === undefined ? undefined : retries.get(provider)),
    tools,
    hooksFor,
    model: deps.model,
    searchAttributes: deps.searchAttributes,
    decideSignal: deps.decideSignal ?? true,
    verifiedApprovers: deps.verifiedApprovers ?? false,
    ...(deps.mcp && { mcp: deps.mcp }),
  };
  return {
    ...createAgentActivities(agentDeps),
    ...createModelActivities({
      client: { client: deps.openai, ...(deps.api && { api: deps.api }) },
      conversations,
      ...(deps.providers && { providers: deps.providers }),
      outputs: new Map(deps.agents.flatMap((a) => (a.output ? [[a.name, a.output] as const] : []))),
      tools,
    }),
    ...createGuardrailActivities(agents, {
      endpoints: modelEndpoints({
        client: { client: deps.openai, ...(deps.api && { api: deps.api }) },
        ...(deps.providers && { providers: deps.providers }),
      }),
      model: deps.model,
    }),
    ...createHandoffActivities(agentDeps),
    ...createApprovalHookActivities({ hooksFor }),
    ...recordingResults(createToolActivities({ tools, hooksFor, ...(deps.mcp && { mcp: deps.mcp }) }), conversations),
  };
}

/** `runTool` that also leaves its result where the turn's next model call looks first (./conversation-cache.ts). */
function recordingResults<T extends Pick<TillerActivities, 'runTool'>>(acts: T, conversations: ConversationCache): T {
  return {
    ...acts,
    async runTool(req) {
      const response = await acts.runTool(req);
      // What the model reads back, on success and on failure alike: the response's content.
      const turn = Context.current().info.workflowExecution;
      if (turn) conversations.toolResult(`${turn.workflowId}/${turn.runId}`, req.toolCallId, response.content);
      return response;
    },
  };
}
