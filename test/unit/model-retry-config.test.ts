/**
 * How long a model call may take is configured per agent (`modelRetry`) and per provider (`retry`),
 * checked at the boundary, and recorded in the agent's spec — the agent's over its provider's.
 */
import { buildAgentSpec } from '../../src/activities/agent-spec';
import { ProviderConfigError, providerClients } from '../../src/activities/providers';
import { defineAgent } from '../../src/agents/define';
import type { ModelRetrySpec } from '../../src/core/spec';

const deps = (retries: Record<string, ModelRetrySpec>) => ({
  agents: new Map(),
  tools: new Map(),
  hooksFor: () => [],
  model: 'm',
  searchAttributes: false,
  modelRetryFor: (provider: string | undefined) => (provider === undefined ? undefined : retries[provider]),
});

test('a provider’s retry is checked and kept on its endpoint', () => {
  const endpoints = providerClients({
    local: { baseURL: 'http://127.0.0.1:8080/v1', retry: { budget: '20 minutes', firstToken: 90_000 } },
  });
  expect(endpoints.get('local')?.retry).toEqual({ budget: '20 minutes', firstToken: 90_000 });
  expect(() =>
    providerClients({ local: { baseURL: 'http://127.0.0.1:8080/v1', retry: { budget: 'soon' as never } } }),
  ).toThrow(ProviderConfigError);
  expect(() =>
    providerClients({
      local: { baseURL: 'http://127.0.0.1:8080/v1', retry: { budget: '1 minute', tries: 3 } },
    } as never),
  ).toThrow(/tries/);
});

test('an agent’s modelRetry is checked when it is defined', () => {
  expect(() => defineAgent({ name: 'a', instructions: 'x', tools: [], modelRetry: { budget: '10 ms' } })).toThrow(
    /agent a: invalid modelRetry: .*budget.*from 1 s to 7 days/,
  );
  expect(() =>
    defineAgent({ name: 'a', instructions: 'x', tools: [], modelRetry: { firstToken: '2 minutes' } }),
  ).not.toThrow();
});

test('the spec records the agent’s modelRetry, else its provider’s, else nothing (the defaults)', () => {
  const d = deps({ local: { budget: '20 minutes' } });
  const own = defineAgent({
    name: 'own',
    instructions: 'x',
    tools: [],
    provider: 'local',
    modelRetry: { budget: '1 hour' },
  });
  const viaProvider = defineAgent({ name: 'via', instructions: 'x', tools: [], provider: 'local' });
  const plain = defineAgent({ name: 'plain', instructions: 'x', tools: [] });
  expect(buildAgentSpec(own, d).modelRetry).toEqual({ budget: '1 hour' });
  expect(buildAgentSpec(viaProvider, d).modelRetry).toEqual({ budget: '20 minutes' });
  expect(buildAgentSpec(plain, d)).not.toHaveProperty('modelRetry');
});
