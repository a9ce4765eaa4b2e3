/**
 * The capacity run's model: the project's scripted model (a real HTTP server on loopback speaking Chat
 * Completions) with a stateless script. The plan is read from the conversation's *last* user message
 * and the step from the tool results after it, so a session's later turns (whose conversation carries
 * the earlier ones) follow their own plan. Every request is timestamped per plan key: the time between
 * two requests of one turn is one step. A gated call's request is announced (`onGated`), so the driver
 * knows when to look for the wait without polling every turn all along.
 */
import { startScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model';
import { messageText, requestMessages } from '../../src/testing/scripted-model/messages';
import { callId, GATED_TOOL, STEP_TOOL, type Plan } from '../bench/fixture';

const PREFIX = 'capacity-plan ';

export function planInput(plan: Plan): string {
  return `${PREFIX}${JSON.stringify(plan)}`;
}

export interface CapacityModel {
  url: string;
  /** performance.now() of every request, per plan key (taken and deleted by the driver). */
  requests: Map<string, number[]>;
  /** Called when the model answers a plan's k-th call with the gated tool. */
  onGated: (key: string, k: number) => void;
  close(): Promise<void>;
}

export async function startCapacityModel(): Promise<CapacityModel> {
  const holder: { server?: ScriptedModel } = {};
  const model: CapacityModel = {
    url: '',
    requests: new Map(),
    onGated: () => undefined,
    close: () => holder.server?.close() ?? Promise.resolve(),
  };
  holder.server = await startScriptedModel({
    script: ({ body }) => {
      const at = performance.now();
      // The server keeps every request body otherwise: the whole conversation each time, for the whole run.
      if (holder.server) holder.server.requests.length = 0;
      const messages = requestMessages(body);
      let last = messages.length - 1;
      while (last >= 0 && messages[last]?.role !== 'user') last--;
      const text = messageText(messages[last]?.content);
      if (!text.startsWith(PREFIX))
        return { error: { status: 400, message: 'capacity: the last user message carries no plan' } };
      const plan = JSON.parse(text.slice(PREFIX.length)) as Plan;
      let times = model.requests.get(plan.key);
      if (!times) model.requests.set(plan.key, (times = []));
      times.push(at);
      const k = messages.slice(last + 1).filter((m) => m.role === 'tool').length;
      const usage = { prompt_tokens: 10, completion_tokens: 5 };
      if (k < plan.steps)
        return { content: `step ${k}`, toolCalls: [{ id: callId(k), name: STEP_TOOL, arguments: { i: k } }], usage };
      if (k < plan.steps + (plan.gated ?? 0)) {
        model.onGated(plan.key, k);
        return { content: `gated ${k}`, toolCalls: [{ id: callId(k), name: GATED_TOOL, arguments: { i: k } }], usage };
      }
      return { content: `done after ${k} steps`, usage };
    },
  });
  model.url = holder.server.url;
  return model;
}
