/**
 * Where a model call goes: the worker's default client and its named providers, as endpoints (a client
 * and the API it speaks), found by provider name; and the default client built from the standard env.
 */
import { ApplicationFailure } from '@temporalio/activity';
import OpenAI from 'openai';
import { FailureType } from '../../core/failures';
import type { ModelApi, ModelRetrySpec } from '../../core/spec';

/** A model endpoint: its client, and the API it speaks when the agent does not say. */
export interface ModelEndpoint {
  client: OpenAI;
  api?: ModelApi;
  /**
   * Responses API: the provider keeps responses (`store: true`), so a call continues from the previous
   * one with `previous_response_id` and sends only what is new. Default false: the full input every call.
   */
  store?: boolean;
  /** How long a call may take, retries included, for agents that do not say (`modelRetry`); absent: the defaults. */
  retry?: ModelRetrySpec;
}

/** An endpoint, or a bare client (an OpenAI client, or anything shaped like one: it has `chat`). */
const endpointOf = (e: OpenAI | ModelEndpoint): ModelEndpoint =>
  'client' in e && !('chat' in e) ? e : { client: e as OpenAI };

/** The worker's endpoints by provider name, and the keys every failure is redacted of. */
export interface ModelEndpoints {
  endpointFor(provider: string | undefined): ModelEndpoint;
  secrets: (string | undefined)[];
}

export function modelEndpoints({
  client,
  providers = new Map(),
}: {
  client: OpenAI | ModelEndpoint;
  providers?: ReadonlyMap<string, OpenAI | ModelEndpoint>;
}) {
  const main = endpointOf(client);
  const named = new Map([...providers].map(([name, p]) => [name, endpointOf(p)]));
  // Every key this worker holds is redacted from every failure (an endpoint may echo any of them).
  const secrets = [main, ...named.values()].map((e) => e.client.apiKey ?? undefined);
  const endpointFor = (provider: string | undefined): ModelEndpoint => {
    const endpoint = provider === undefined ? main : named.get(provider);
    if (endpoint) return endpoint;
    throw ApplicationFailure.create({
      type: FailureType.ModelNotFound,
      message: `no model provider ${provider} on this worker; it has: ${[...named.keys()].join(', ') || '(none)'}`,
      nonRetryable: true,
    });
  };
  return { endpointFor, secrets } satisfies ModelEndpoints;
}

/** The client from the standard env: `OPENAI_BASE_URL`, `OPENAI_API_KEY`. */
export function openAIFromEnv(overrides: { baseURL?: string; apiKey?: string } = {}): OpenAI {
  return new OpenAI({
    maxRetries: 0,
    apiKey: overrides.apiKey ?? process.env.OPENAI_API_KEY ?? 'not-needed',
    ...((overrides.baseURL ?? process.env.OPENAI_BASE_URL) && {
      baseURL: overrides.baseURL ?? process.env.OPENAI_BASE_URL,
    }),
  });
}
