/**
 * Hostile provider configuration (`TILLER_PROVIDERS`, `createWorker({ providers })`): oversized, malformed
 * or wrongly typed settings stop the worker's start with a clear error that never quotes a key.
 */
import {
  MAX_PROVIDERS,
  MAX_PROVIDERS_ENV_CHARS,
  ProviderConfigError,
  providerClients,
  providersFromEnv,
} from '../../src/activities/providers';
import { modelApiFromEnv } from '../../src/worker/model-env';

const SECRET = 'sk-hostile-0123456789abcdef';
const fromEnv = (value: string) => () => providersFromEnv({ TILLER_PROVIDERS: value });

/** Runs `fn`, expects a ProviderConfigError, and returns its message. */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ProviderConfigError);
    expect((err as Error).message).not.toContain(SECRET);
    expect((err as Error).message.length).toBeLessThan(2_000);
    return (err as Error).message;
  }
  throw new Error('expected a ProviderConfigError');
}

test('an oversized TILLER_PROVIDERS is refused before it is parsed', () => {
  const huge = JSON.stringify({ x: { baseURL: 'http://a', apiKey: SECRET.repeat(4_000) } });
  expect(huge.length).toBeGreaterThan(MAX_PROVIDERS_ENV_CHARS);
  expect(refusal(fromEnv(huge))).toBe(`TILLER_PROVIDERS is longer than ${MAX_PROVIDERS_ENV_CHARS} characters`);
});

test('malformed TILLER_PROVIDERS: not JSON, nested deep, wrong types, too many, unknown keys', () => {
  expect(refusal(fromEnv(`{"x": {"apiKey": ${SECRET}`))).toBe('TILLER_PROVIDERS is not JSON');
  expect(refusal(fromEnv(`${'['.repeat(10_000)}${']'.repeat(10_000)}`))).toMatch(/^TILLER_PROVIDERS: /);
  for (const value of ['[]', 'null', '42', '"groq"', '{"x": "http://a"}', '{"x": {"baseURL": 42}}'])
    expect(refusal(fromEnv(value))).toMatch(/^TILLER_PROVIDERS: /);
  expect(refusal(fromEnv(JSON.stringify({ x: { baseURL: 'http://a', apiKey: SECRET, token: SECRET } })))).toMatch(
    /token/,
  );
  expect(refusal(fromEnv(JSON.stringify({ x: { baseURL: 'http://a', apiKey: 'k'.repeat(5_000) } })))).toMatch(
    /^TILLER_PROVIDERS: x\.apiKey: /,
  );
  const many = Object.fromEntries(
    Array.from({ length: MAX_PROVIDERS + 1 }, (_, i) => [`p${i}`, { baseURL: 'http://a' }]),
  );
  expect(refusal(fromEnv(JSON.stringify(many)))).toBe(`TILLER_PROVIDERS: at most ${MAX_PROVIDERS} providers`);
  // A bad name is named; a long one only by its length (it may be a key pasted in the wrong place).
  const named = refusal(fromEnv(JSON.stringify({ [SECRET.repeat(2_000)]: { baseURL: 42 } })));
  expect(named).toMatch(
    /^TILLER_PROVIDERS: provider names are 1-64 letters, digits, _ or - \(not one of 54000 characters\)$/,
  );
  expect(refusal(fromEnv('{"bad name": {"baseURL": "http://a"}}'))).toBe(
    'TILLER_PROVIDERS: provider names are 1-64 letters, digits, _ or - (not "bad name")',
  );
});

test('an oversized or wrongly typed `providers` option is refused by the worker before it starts', () => {
  expect(refusal(() => providerClients({ x: { baseURL: `http://a/${'p'.repeat(1_000_000)}` } }))).toMatch(
    /^invalid providers: x\.baseURL: /,
  );
  expect(refusal(() => providerClients({ x: { baseURL: 'http://a', apiKey: SECRET.repeat(1_000) } }))).toMatch(
    /^invalid providers: x\.apiKey: /,
  );
  const many = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`p${i}`, { baseURL: 'http://a' }]));
  expect(refusal(() => providerClients(many))).toBe(`invalid providers: at most ${MAX_PROVIDERS} providers`);
  for (const bad of [null, [], 'http://a', { x: null }, { x: { baseURL: 'http://a', apiKey: 42 } }])
    expect(refusal(() => providerClients(bad as never))).toMatch(/^invalid providers: /);
});

test('a provider says which model API it speaks and whether it keeps responses; anything else is refused', () => {
  const endpoints = providerClients({
    oai: { baseURL: 'https://api.openai.com/v1', apiKey: SECRET, api: 'responses', store: true },
    local: { baseURL: 'http://127.0.0.1:8080/v1' },
  });
  expect([endpoints.get('oai')!.api, endpoints.get('oai')!.store]).toEqual(['responses', true]);
  expect([endpoints.get('local')!.api, endpoints.get('local')!.store]).toEqual([undefined, undefined]);
  expect(refusal(fromEnv('{"x": {"baseURL": "http://a", "api": "completions"}}'))).toMatch(/api/);
  expect(refusal(fromEnv('{"x": {"baseURL": "http://a", "store": "yes"}}'))).toMatch(/store/);
});

test('TILLER_MODEL_API picks the default client API: chat or responses, nothing else', () => {
  expect(modelApiFromEnv({})).toBeUndefined();
  expect(modelApiFromEnv({ TILLER_MODEL_API: 'responses' })).toBe('responses');
  expect(modelApiFromEnv({ TILLER_MODEL_API: ' chat ' })).toBe('chat');
  expect(() => modelApiFromEnv({ TILLER_MODEL_API: 'x'.repeat(10_000) })).toThrow(
    /^TILLER_MODEL_API must be chat or responses \(not "x{40}"\)$/,
  );
});
