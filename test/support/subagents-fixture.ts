/**
 * The agents and model scripts of the sub-agent tests (test/integration/subagents*.test.ts): a planner
 * that delegates to a researcher (on its own policy, or under the planner's with `inherit: true`), and
 * a gatekeeper whose sub-agent call itself needs a person.
 */
import { defineAgent } from '../../src/agents/define';
import { scriptByInstructions, type ScriptStep } from '../../src/testing/scripted-model';
import type { Harness } from './harness';

export const PLANNER = 'You plan and delegate.';
export const RESEARCHER = 'You research and tidy up files.';
export const GATEKEEPER = 'You guard the workspace.';
export const agents = [
  defineAgent({
    name: 'planner',
    instructions: PLANNER,
    tools: ['read_file', 'delete_file'],
    approvals: { delete_file: true },
    subAgents: {
      research: { agent: 'researcher', description: 'Hand a task to the researcher.' },
      research_under_my_rules: {
        agent: 'researcher',
        description: 'Hand a task to the researcher, under my approval rules.',
        inherit: true,
      },
    },
  }),
  // Its own policy gates nothing.
  defineAgent({ name: 'researcher', instructions: RESEARCHER, tools: ['read_file', 'delete_file'] }),
  // Calling its sub-agent needs a human too.
  defineAgent({
    name: 'gatekeeper',
    instructions: GATEKEEPER,
    tools: ['delete_file'],
    approvals: { delete_file: true, ask_researcher: true },
    subAgents: { ask_researcher: { agent: 'researcher', description: 'Ask the researcher.', inherit: true } },
  }),
];

/** The planner delegates one task through `tool`, then answers with `final`. */
export const plannerDelegating = (tool: string, input: string): ScriptStep[] => [
  {
    toolCalls: [{ id: 'p1', name: tool, arguments: { input } }],
    usage: { prompt_tokens: 11, completion_tokens: 3 },
  },
  { content: 'planner done', usage: { prompt_tokens: 13, completion_tokens: 4 } },
];
/** The researcher deletes `file`, then reports. */
export const researcherDeleting = (file: string): ScriptStep[] => [
  {
    toolCalls: [{ id: 'r1', name: 'delete_file', arguments: { path: file } }],
    usage: { prompt_tokens: 7, completion_tokens: 2 },
  },
  { content: `deleted ${file}`, usage: { prompt_tokens: 5, completion_tokens: 1 } },
];

/** What the tests do with the harness `h`: a worker serving these agents, scripts, requests, the inbox. */
export function subAgentHelpers(h: Harness) {
  return {
    withWorker: <T>(fn: () => Promise<T>) => h.withWorker(fn, { agents }),
    script(planner: ScriptStep[], researcher: ScriptStep[], gatekeeper: ScriptStep[] = []) {
      h.model.setScript(
        scriptByInstructions({ [PLANNER]: planner, [RESEARCHER]: researcher, [GATEKEEPER]: gatekeeper }),
      );
    },
    requestsOf: (instructions: string) =>
      h.model.requests.filter(
        (r) => r.body.messages[0]?.role === 'system' && r.body.messages[0].content === instructions,
      ),
    async waitForInbox(turnId: string, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = (await h.tiller.pending()).find((p) => p.turnId === turnId);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`${turnId} did not appear in the inbox`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}

export const toolMessage = (body: any, id: string) =>
  body.messages.find((m: any) => m.role === 'tool' && m.tool_call_id === id)?.content;
