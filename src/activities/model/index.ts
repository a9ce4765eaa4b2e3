/**
 * The model activity: one model call through the real `openai` SDK against any OpenAI-compatible
 * endpoint, in Chat Completions (./chat.ts) or the Responses API (./responses.ts). The SDK never retries
 * (`maxRetries: 0`); Temporal does, steered by `classifyModelError`, so every attempt is visible in the
 * workflow history. Whichever API answered, the workflow gets the same `ModelResponse`.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import OpenAI from 'openai';
import type { ZodType } from 'zod';
import { FailureType } from '../../core/failures';
import type {
  ModelApi,
  ModelRequest,
  ModelResponse,
  ModelRetrySpec,
  OutputCheck,
  SummaryRequest,
  SummaryResponse,
} from '../../core/spec';
import { ConversationCache } from '../conversation-cache';
import { assistantMessage, estimateUsage, finishReasonOf, reasoningOf, refusalOf, type RawAnswer } from './answer';
import { streamedChat, unaryChat } from './chat';
import { contextExceeded } from './context-exceeded';
import { redactedFailure } from './errors';
import { liveHeartbeat } from './heartbeat';
import { askRepeating } from './repeat';
import { checkOutput } from './output';
import { conversationKey, promptOf, type Prompt } from './prompt';
import { respond } from './responses';
import { summaryOf, summaryPrompt } from './summary';

export { checkOutput } from './output';
export { classifyModelError, redact } from './errors';
export { conversationKey } from './prompt';

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

export interface ModelActivityDeps {
  /** The client to use, or a factory called once per worker. Build it with `maxRetries: 0`. */
  client: OpenAI | ModelEndpoint;
  /** The worker's copy of its turns' conversations (shared with the tool activities, which add results). */
  conversations?: ConversationCache;
  /** The output schemas of the agents with structured output, by agent name. */
  outputs?: ReadonlyMap<string, ZodType>;
  /** Named providers (`createWorker({ providers })`), for agents with `provider`. */
  providers?: ReadonlyMap<string, OpenAI | ModelEndpoint>;
}

/** An endpoint, or a bare client (an OpenAI client, or anything shaped like one: it has `chat`). */
const endpointOf = (e: OpenAI | ModelEndpoint): ModelEndpoint =>
  'client' in e && !('chat' in e) ? e : { client: e as OpenAI };

/** One call on the wire the request and its endpoint choose. */
export function ask(endpoint: ModelEndpoint, prompt: Prompt, signal: AbortSignal, beat: (text: string) => void) {
  const api = prompt.api ?? endpoint.api ?? 'chat';
  if (api === 'responses') return respond(endpoint.client, prompt, { signal, beat, store: endpoint.store ?? false });
  return prompt.stream
    ? streamedChat(endpoint.client, prompt, signal, beat)
    : unaryChat(endpoint.client, prompt, signal);
}

/** The raw answer as the workflow gets it: checked, bounded, its usage reported or estimated. */
function responseOf(raw: RawAnswer, prompt: Prompt, api: ModelApi) {
  const message = assistantMessage(raw, prompt.call);
  const usage = raw.usage ?? estimateUsage(prompt.messages, prompt.tools, message);
  const reasoning = reasoningOf(raw);
  const refusal = refusalOf(raw);
  return {
    message,
    usage,
    usageSource: raw.usage ? (prompt.stream ? 'stream' : 'response') : 'estimated',
    finishReason: finishReasonOf(raw, message),
    ...(reasoning !== undefined && { reasoning }),
    ...(refusal !== undefined && { refusal }),
    ...(api !== 'chat' && { api }),
  } satisfies Omit<ModelResponse, 'durationMs'>;
}

/** The worker's endpoints by provider name, and the keys every failure is redacted of. */
export interface ModelEndpoints {
  endpointFor(provider: string | undefined): ModelEndpoint;
  secrets: (string | undefined)[];
}

export function modelEndpoints({ client, providers = new Map() }: Pick<ModelActivityDeps, 'client' | 'providers'>) {
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

export function createModelActivities({
  client,
  conversations = new ConversationCache(),
  outputs = new Map(),
  providers = new Map(),
}: ModelActivityDeps) {
  const { endpointFor, secrets } = modelEndpoints({ client, providers });
  return {
    async summarizeConversation(req: SummaryRequest): Promise<SummaryResponse> {
      const ctx = Context.current();
      try {
        const endpoint = endpointFor(req.provider);
        const prompt = summaryPrompt(req);
        return summaryOf(await ask(endpoint, prompt, ctx.cancellationSignal, () => undefined), prompt, req.maxTokens);
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw err;
        throw redactedFailure(err, secrets);
      }
    },

    async callModel(req: ModelRequest): Promise<ModelResponse> {
      const ctx = Context.current();
      const started = performance.now();
      const heartbeat = liveHeartbeat(ctx, req.call, req.firstTokenMs);
      // Cancelled by Temporal, or given up by the heartbeat (no first chunk in time, a stalled stream).
      const signal = AbortSignal.any([ctx.cancellationSignal, heartbeat.signal]);
      try {
        const endpoint = endpointFor(req.provider);
        const prompt = await promptOf(req, ctx, conversations);
        const raw = await askRepeating(() => ask(endpoint, prompt, signal, heartbeat.beat), signal);
        const response = responseOf(raw, prompt, prompt.api ?? endpoint.api ?? 'chat');
        const key = req.conversation && conversationKey(ctx);
        if (key) conversations.answered(key, response.message);
        let output: OutputCheck | undefined;
        if (req.output && !response.message.tool_calls?.length) {
          const schema = outputs.get(req.output.agent);
          if (!schema)
            throw ApplicationFailure.nonRetryable(`agent ${req.output.agent} has no output schema on this worker`);
          output = checkOutput(response.message.content, schema);
        }
        return {
          ...response,
          ...(output && { output }),
          durationMs: Math.round((performance.now() - started) * 100) / 100,
        };
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw err;
        throw contextExceeded(err, secrets) ?? redactedFailure(heartbeat.failure() ?? err, secrets);
      } finally {
        heartbeat.stop();
      }
    },
  };
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
