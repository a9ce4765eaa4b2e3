/**
 * Named model providers (`createWorker({ providers })`, or `TILLER_PROVIDERS` for `tiller worker`): OpenAI-
 * compatible endpoints an agent picks with `provider`. Checked with zod and bounded like any configuration
 * from outside; the key is read here (given, or from the env variable `apiKeyEnv` names) and stays in the
 * worker's OpenAI clients: specs, history, state and logs only ever hold the provider's name.
 */
import OpenAI from 'openai';
import { z } from 'zod';
import { ModelRetryConfig } from '../core/model-retry-schema';
import { formatZodError } from '../core/schemas';
import type { ModelEndpoint } from './model';

/** A provider's name, as agents refer to it. */
export const PROVIDER_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
export const MAX_PROVIDERS = 32;
/** `TILLER_PROVIDERS` is at most this many characters of JSON. */
export const MAX_PROVIDERS_ENV_CHARS = 64_000;

/**
 * A named OpenAI-compatible model provider (`createWorker({ providers })`, `TILLER_PROVIDERS`): its `baseURL`,
 * and `apiKey` or `apiKeyEnv` (not both).
 */
export const ProviderConfig = z
  .strictObject({
    /** The endpoint, e.g. `https://api.groq.com/openai/v1` or `http://localhost:11434/v1`. */
    baseURL: z
      .string()
      .max(2_000)
      .refine((u) => /^https?:\/\//.test(u) && URL.canParse(u), 'must be an http(s) URL'),
    /** The key itself (from your secret store) … */
    apiKey: z.string().min(1).max(4_096).optional(),
    /** … or the name of the env variable that holds it. */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'must be an environment variable name')
      .optional(),
    /** The API agents speak to it unless they say: `chat` (Chat Completions, the default) or `responses`. */
    api: z.enum(['chat', 'responses']).optional(),
    /**
     * Responses API: the provider keeps responses, so each call continues from the last one with
     * `previous_response_id` and sends only what is new (default false: the full input every call).
     */
    store: z.boolean().optional(),
    /** How long a call to this provider may take, retries included (docs/models.md); an agent's `modelRetry` wins. */
    retry: ModelRetryConfig.optional(),
  })
  .refine((p) => p.apiKey === undefined || p.apiKeyEnv === undefined, 'give apiKey or apiKeyEnv, not both');
/** A model provider's settings (see the schema of the same name). */
export type ProviderConfig = z.infer<typeof ProviderConfig>;

const Providers = z.record(z.string(), ProviderConfig);

/**
 * The names, checked before the values: an error names the provider, so a name must be short and plain
 * first (zod's own message for a bad record key quotes all of it, however long — and says only "Invalid key").
 */
function namesProblem(config: unknown): string | undefined {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) return undefined; // zod says what it is
  const names = Object.keys(config);
  if (names.length > MAX_PROVIDERS) return `at most ${MAX_PROVIDERS} providers`;
  const bad = names.find((n) => !PROVIDER_NAME.test(n));
  if (bad === undefined) return undefined;
  // A long "name" may be a key pasted in the wrong place: only its length is told.
  const which = bad.length <= 64 ? JSON.stringify(bad) : `one of ${bad.length} characters`;
  return `provider names are 1-64 letters, digits, _ or - (not ${which})`;
  return undefined;
}

/** Thrown for a provider configuration that does not validate or names a missing env variable. */
export class ProviderConfigError extends Error {
  override readonly name = 'ProviderConfigError';
}

/** The providers' endpoints (OpenAI clients with `maxRetries: 0`: Temporal retries), by name; throws `ProviderConfigError`. */
export function providerClients(
  config: Record<string, ProviderConfig>,
  env: NodeJS.ProcessEnv = process.env,
): Map<string, ModelEndpoint> {
  const problem = namesProblem(config);
  if (problem !== undefined) throw new ProviderConfigError(`invalid providers: ${problem}`);
  const parsed = Providers.safeParse(config);
  if (!parsed.success) throw new ProviderConfigError(`invalid providers: ${formatZodError(parsed.error)}`);
  const clients = new Map<string, ModelEndpoint>();
  for (const [name, p] of Object.entries(parsed.data)) {
    let apiKey = p.apiKey;
    if (p.apiKeyEnv !== undefined) {
      apiKey = env[p.apiKeyEnv];
      if (!apiKey) throw new ProviderConfigError(`provider ${name}: the env variable ${p.apiKeyEnv} is not set`);
    }
    clients.set(name, {
      client: new OpenAI({ baseURL: p.baseURL, apiKey: apiKey ?? 'not-needed', maxRetries: 0 }),
      ...(p.api !== undefined && { api: p.api }),
      ...(p.store !== undefined && { store: p.store }),
      ...(p.retry !== undefined && { retry: p.retry }),
    });
  }
  return clients;
}

/**
 * The providers in `TILLER_PROVIDERS` (JSON: `{"groq": {"baseURL": "…", "apiKeyEnv": "GROQ_API_KEY"}}`),
 * or none. Keys belong in their own env variables (`apiKeyEnv`), not in this one.
 */
export function providersFromEnv(env: NodeJS.ProcessEnv = process.env): Record<string, ProviderConfig> | undefined {
  const raw = env.TILLER_PROVIDERS;
  if (raw === undefined || raw.trim() === '') return undefined;
  if (raw.length > MAX_PROVIDERS_ENV_CHARS)
    throw new ProviderConfigError(`TILLER_PROVIDERS is longer than ${MAX_PROVIDERS_ENV_CHARS} characters`);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    // The text may hold a key: never quote it.
    throw new ProviderConfigError('TILLER_PROVIDERS is not JSON');
  }
  const problem = namesProblem(json);
  if (problem !== undefined) throw new ProviderConfigError(`TILLER_PROVIDERS: ${problem}`);
  const parsed = Providers.safeParse(json);
  if (!parsed.success) throw new ProviderConfigError(`TILLER_PROVIDERS: ${formatZodError(parsed.error)}`);
  return parsed.data;
}
