/**
 * Named model providers: one worker, two OpenAI-compatible endpoints (two scripted models on two
 * loopback ports) and the default one; each agent's calls go to its provider with its key, and no key
 * reaches history, state or a failure's message.
 */
import { defineAgent } from '../../src/agents/define';
import { providerClients, providersFromEnv, ProviderConfigError } from '../../src/activities/providers';
import { startScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model';
import { createHarness, type Harness } from '../support/harness';

const KEY_A = 'sk-alpha-0123456789-secret';
const KEY_B = 'sk-beta-9876543210-secret';
const KEY_ENV = 'TILLER_TEST_PROVIDER_BETA_KEY';

let h: Harness;
let alpha: ScriptedModel;
let beta: ScriptedModel;
beforeAll(async () => {
  h = await createHarness();
  alpha = await startScriptedModel();
  beta = await startScriptedModel();
  process.env[KEY_ENV] = KEY_B;
});
afterAll(async () => {
  delete process.env[KEY_ENV];
  await alpha?.close();
  await beta?.close();
  await h?.close();
});

const agents = [
  defineAgent({ name: 'on-alpha', instructions: 'x', tools: [], provider: 'alpha', model: 'alpha-model' }),
  defineAgent({ name: 'on-beta', instructions: 'x', tools: [], provider: 'beta', stream: false }),
  defineAgent({ name: 'on-default', instructions: 'x', tools: [] }),
];
const providers = () => ({
  alpha: { baseURL: alpha.url, apiKey: KEY_A },
  beta: { baseURL: beta.url, apiKeyEnv: KEY_ENV },
});

test('two agents on two providers in one worker: each call goes to its endpoint with its key', async () => {
  alpha.setScript([{ content: 'from alpha' }]);
  beta.setScript([{ content: 'from beta' }, { error: { status: 401, message: `invalid key ${KEY_B}` } }]);
  h.model.setScript([{ content: 'from default' }]);
  const [a, b, d, failed] = [h.turnId('alpha'), h.turnId('beta'), h.turnId('default'), h.turnId('beta-401')];
  await h.withWorker(
    async () => {
      await h.tiller.startTurn({ agent: 'on-alpha', input: 'hi', turnId: a });
      expect((await h.tiller.result(a)).output).toBe('from alpha');
      await h.tiller.startTurn({ agent: 'on-beta', input: 'hi', turnId: b });
      expect((await h.tiller.result(b)).output).toBe('from beta');
      await h.tiller.startTurn({ agent: 'on-default', input: 'hi', turnId: d });
      expect((await h.tiller.result(d)).output).toBe('from default');
      // An endpoint that echoes the key in its error: the failure is redacted.
      await h.tiller.startTurn({ agent: 'on-beta', input: 'hi', turnId: failed });
      const result = await h.tiller.result(failed);
      expect(result.status).toBe('failed');
      expect(result.error).toContain('invalid key [redacted]');

      for (const turnId of [a, b, d, failed]) {
        const history = JSON.stringify((await h.client.workflow.getHandle(turnId).fetchHistory()).events);
        const state = JSON.stringify(await h.tiller.state(turnId));
        for (const key of [KEY_A, KEY_B]) {
          expect(history).not.toContain(key);
          expect(state).not.toContain(key);
        }
      }
    },
    { agents, tools: [], providers: providers() },
  );
  expect(alpha.requests.map((r) => [r.body.model, r.headers.authorization])).toEqual([
    ['alpha-model', `Bearer ${KEY_A}`],
  ]);
  expect(beta.requests.map((r) => [r.stream, r.headers.authorization])).toEqual([
    [false, `Bearer ${KEY_B}`],
    [false, `Bearer ${KEY_B}`],
  ]);
  expect(h.model.requests.map((r) => r.headers.authorization)).toEqual(['Bearer test']);
});

test('a worker refuses an agent on an unconfigured provider, and providers that do not validate', async () => {
  await expect(h.worker({ agents, tools: [], providers: { alpha: providers().alpha } })).rejects.toThrow(
    'agent on-beta uses model provider beta, which is not configured (providers: alpha)',
  );
  expect(() => providerClients({ x: { baseURL: 'ftp://example.com' } })).toThrow(
    'invalid providers: x.baseURL: must be an http(s) URL',
  );
  expect(() => providerClients({ x: { baseURL: 'http://a', apiKeyEnv: 'TILLER_TEST_UNSET_KEY' } })).toThrow(
    'provider x: the env variable TILLER_TEST_UNSET_KEY is not set',
  );
  expect(() => providerClients({ 'bad name': { baseURL: 'http://a' } })).toThrow(ProviderConfigError);
  expect(() => providerClients({ x: { baseURL: 'http://a', apiKey: 'k', apiKeyEnv: 'K' } })).toThrow(
    'give apiKey or apiKeyEnv, not both',
  );
  expect(() => providerClients({ x: { baseURL: 'http://a', token: 'k' } as never })).toThrow(/token/);
  const secret = 'sk-in-the-env-json-0123';
  expect(() => providersFromEnv({ TILLER_PROVIDERS: `{"x": ${secret}` })).toThrow('TILLER_PROVIDERS is not JSON');
  expect(providersFromEnv({ TILLER_PROVIDERS: JSON.stringify(providers()) })).toEqual(providers());
  expect(providersFromEnv({})).toBeUndefined();
});
