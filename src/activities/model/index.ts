/**
 * The model activities: one model call through the real `openai` SDK against any OpenAI-compatible
 * endpoint (./endpoints.ts: the default client or the agent's named provider), in Chat Completions
 * (./chat.ts) or the Responses API (./responses.ts), chosen in ./ask.ts. The SDK never retries
 * (`maxRetries: 0`); Temporal does, steered by `classifyModelError`, so every attempt is visible in the
 * workflow history. Whichever API answered, the workflow gets the same `ModelResponse`.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type OpenAI from 'openai';
import type { ZodType } from 'zod';
import type { ModelRequest, ModelResponse, OutputCheck, SummaryRequest, SummaryResponse } from '../../core/spec';
import type { ToolDefinition } from '../../tools/define';
import { argChecksOf } from '../arg-checks';
import { ConversationCache } from '../conversation-cache';
import { ask, responseOf } from './ask';
import { contextExceeded } from './context-exceeded';
import { redactedFailure } from './errors';
import { liveHeartbeat } from './heartbeat';
import { askRepeating } from './repeat';
import { checkOutput } from './output';
import { modelEndpoints, type ModelEndpoint } from './endpoints';
import { conversationKey, promptOf } from './prompt';
import { summaryOf, summaryPrompt } from './summary';

export { checkOutput } from './output';
export { classifyModelError, redact } from './errors';
export { conversationKey } from './prompt';
export { ask } from './ask';
export { modelEndpoints, openAIFromEnv, type ModelEndpoint, type ModelEndpoints } from './endpoints';

export interface ModelActivityDeps {
  /** The client to use, or a factory called once per worker. Build it with `maxRetries: 0`. */
  client: OpenAI | ModelEndpoint;
  /** The worker's copy of its turns' conversations (shared with the tool activities, which add results). */
  conversations?: ConversationCache;
  /** The output schemas of the agents with structured output, by agent name. */
  outputs?: ReadonlyMap<string, ZodType>;
  /** Named providers (`createWorker({ providers })`), for agents with `provider`. */
  providers?: ReadonlyMap<string, OpenAI | ModelEndpoint>;
  /** The worker's tools, whose calls' arguments a request may ask to check (`ModelRequest.checkArgs`). */
  tools?: ReadonlyMap<string, ToolDefinition>;
}

export function createModelActivities({
  client,
  conversations = new ConversationCache(),
  outputs = new Map(),
  providers = new Map(),
  tools = new Map(),
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
        const argChecks = argChecksOf(req, response.message, tools);
        return {
          ...response,
          ...(output && { output }),
          ...(argChecks && { argChecks }),
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
