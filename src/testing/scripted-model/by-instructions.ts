/**
 * Scripts per agent: one server, several agents (a parent and its sub-agents), each request routed by
 * its system prompt. Pure, no Node imports.
 *
 * @module
 */
import { systemPrompt } from './messages';
import type { ScriptFn, ScriptStep } from './script';

/**
 * One script per agent, for turns where several agents share this server (a parent and its
 * sub-agents): each request goes to the route whose key equals its system prompt (the agent's
 * instructions). An array route is consumed one step per request of that agent; a function route
 * gets `index` counted per route. A request no route matches gets a 500 that names its prompt.
 *
 * @example
 * ```ts
 * model.setScript(scriptByInstructions({
 *   'You plan.': [{ toolCalls: [{ name: 'research', arguments: { input: 'find x' } }] }, { content: 'done' }],
 *   'You research.': [{ content: 'x is 42' }],
 * }));
 * ```
 */
export function scriptByInstructions(routes: Record<string, ScriptStep[] | ScriptFn>): ScriptFn {
  const seen: Record<string, number> = {};
  return ({ body }) => {
    const prompt = systemPrompt(body) ?? '';
    const route = Object.prototype.hasOwnProperty.call(routes, prompt) ? routes[prompt] : undefined;
    if (route === undefined) {
      return {
        error: { status: 500, message: `scripted model: no script for instructions ${JSON.stringify(prompt)}` },
      };
    }
    const index = seen[prompt] ?? 0;
    seen[prompt] = index + 1;
    if (typeof route === 'function') return route({ body, index });
    return route[index] ?? routeExhausted(prompt, index);
  };
}

function routeExhausted(prompt: string, requests: number): ScriptStep {
  return {
    error: {
      status: 500,
      message: `scripted model: script for ${JSON.stringify(prompt)} exhausted after ${requests} requests`,
      type: 'server_error',
    },
  };
}
