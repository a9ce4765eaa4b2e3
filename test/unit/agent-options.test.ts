/**
 * Options a plain-JS agent can get wrong where no type checker sees it — the context window, guardrails
 * (functions or agents), handoffs — are refused with a clear error when the agent is defined, and again
 * when a worker's activities are built from an agent that never went through `defineAgent`.
 */
import OpenAI from 'openai';
import { createActivities } from '../../src/activities';
import { defineAgent, type AgentDefinition } from '../../src/agents/define';
import { guardrailAgent } from '../../src/agents/guardrails';

const base = { name: 'a', instructions: 'x', tools: [] as string[] };
const plain = (extra: Record<string, unknown>) => ({ ...base, ...extra }) as unknown as AgentDefinition;

test.each([
  [-4000, /tokens must be at least 256/],
  [Number.NaN, /tokens must be a number|expected number/],
  [Number.POSITIVE_INFINITY, /tokens must be a number|expected number/],
  [1e12, /tokens must be at most 100000000/],
  [4000.5, /tokens must be a whole number/],
  ['4000', /tokens must be a number/],
])('contextWindow.tokens %p is refused when the agent is defined', (tokens, error) => {
  expect(() => defineAgent(plain({ contextWindow: { tokens } }))).toThrow(error);
  expect(() => defineAgent(plain({ contextWindow: { tokens } }))).toThrow(/^agent a: invalid contextWindow: tokens: /);
});

test('a contextWindow that is not an object, has an unknown strategy or an unknown setting is refused', () => {
  expect(() => defineAgent(plain({ contextWindow: null }))).toThrow(/agent a: invalid contextWindow: /);
  expect(() => defineAgent(plain({ contextWindow: 4000 }))).toThrow(/agent a: invalid contextWindow: /);
  expect(() => defineAgent(plain({ contextWindow: { tokens: 4000, strategy: 'drop' } }))).toThrow(
    "agent a: invalid contextWindow: strategy: strategy must be 'trim' or 'summarize'",
  );
  // A misspelt or invented summary setting would be silently ignored: refused instead.
  expect(() => defineAgent(plain({ contextWindow: { tokens: 4000, summaryTokens: 10 } }))).toThrow(
    /invalid contextWindow: .*summaryTokens/,
  );
  expect(() => defineAgent(plain({ contextWindow: { strategy: 'summarize' } }))).toThrow(/tokens/);
  expect(defineAgent({ ...base, contextWindow: { tokens: 4000, strategy: 'summarize' } }).contextWindow).toEqual({
    tokens: 4000,
    strategy: 'summarize',
  });
});

test('a guardrail is a function or an agent by name, never both or neither', () => {
  const g = (entry: Record<string, unknown>) => plain({ inputGuardrails: [{ name: 'g', ...entry }] });
  expect(() => defineAgent(g({}))).toThrow('agent a: inputGuardrails: g has no run function and no agent');
  expect(() => defineAgent(g({ agent: 'm', run: () => ({ tripwire: false }) }))).toThrow(
    /both a run function and an agent/,
  );
  expect(() => defineAgent(g({ agent: { name: 'm' } }))).toThrow(/agent is the name of a registered agent/);
  expect(() => defineAgent(g({ agent: 'm', tripwireOf: 'yes' }))).toThrow(/tripwireOf must be a function/);
  // guardrailAgent from plain JS without an agent: no name to go by.
  expect(() => defineAgent(plain({ inputGuardrails: [guardrailAgent({} as never)] }))).toThrow(/each needs a name/);
  expect(
    defineAgent(plain({ outputGuardrails: [guardrailAgent({ agent: { name: 'm' }, name: 'check' })] })),
  ).toMatchObject({ outputGuardrails: [{ name: 'check', agent: 'm', timeout: '60 seconds' }] });
});

describe('an agent built without defineAgent is checked when the worker builds its activities', () => {
  const openai = new OpenAI({ apiKey: 'unused', baseURL: 'http://127.0.0.1:9/v1', maxRetries: 0 });
  const build = (...agents: AgentDefinition[]) =>
    createActivities({ agents, tools: [], openai, model: 'm', searchAttributes: false });

  test('its context window, guardrails and handoffs', () => {
    expect(() => build(plain({ contextWindow: { tokens: -1 } }))).toThrow(/agent a: invalid contextWindow/);
    expect(() => build(plain({ outputGuardrails: [{ name: 'x' }] }))).toThrow(/no run function/);
    expect(() => build(plain({ handoffs: [42] }))).toThrow(/each handoff is an agent/);
    expect(() => build(plain({ contextWindow: { tokens: 4000 } }))).not.toThrow();
  });

  test('its guardrail agents: registered, and with nothing a single model call cannot use', () => {
    const guarded = plain({ inputGuardrails: [{ name: 'mod', agent: 'mod' }] });
    expect(() => build(guarded)).toThrow(
      'agent a: guardrail mod runs agent mod, which is not registered on this worker',
    );
    const mod = (extra: Record<string, unknown>) => ({ ...plain(extra), name: 'mod' }) as AgentDefinition;
    expect(() => build(guarded, mod({ handoffs: ['a'] }))).toThrow(/which has handoffs: a guardrail agent/);
    expect(() => build(guarded, mod({ outputGuardrails: [{ name: 'x', run: () => ({ tripwire: false }) }] }))).toThrow(
      /which has outputGuardrails/,
    );
    expect(() => build(guarded, mod({ approvals: {} }))).not.toThrow();
  });
});
