/**
 * The model activity: one Chat Completions call through the real `openai` SDK against any
 * OpenAI-compatible endpoint. The SDK never retries (`maxRetries: 0`); Temporal does, steered by
 * `classifyModelError`, so every attempt is visible in the workflow history.
 */
import { createHash } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import OpenAI from 'openai';
import type { ZodType } from 'zod';
import { BOUNDS, clip, deeperThan, jsonBytes } from '../core/bounds';
import { formatZodError } from '../core/schemas';
import { chatCompletionFields, maxTokensFieldFor, type MaxTokensField } from '../core/model-settings';
import { resolveConversation } from '../core/conversation';
import { ConversationCache, expectedNext, extendChain } from './conversation-cache';
import { FailureType, MODEL_STATUS_NOT_RETRIED } from '../core/failures';
import { LIVE_TEXT_HEARTBEAT_MS, modelProgress } from '../core/live-text';
import { conversationQuery } from '../contract';
import type { ChatCompletionChunk, ChatCompletionCreateParams } from 'openai/resources/chat/completions';
import type {
  AssistantMessage,
  ChatMessage,
  ConversationSnapshot,
  ModelRequest,
  ModelResponse,
  OutputCheck,
  ToolSpec,
} from '../core/spec';

const RETRYABLE_STATUS = new Set([408, 409, 429]);

function retryAfterMs(headers: Headers | undefined): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const after = headers.get('retry-after');
  if (!after) return undefined;
  if (Number.isFinite(Number(after))) return Math.max(0, Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Removes credentials from text that may reach history, logs or clients (an endpoint may echo the key). */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 8) out = out.split(secret).join('[redacted]');
  }
  return out;
}

/**
 * The one place that decides whether a failed model call is retried: 408/409/429/5xx and network
 * errors are (honouring `retry-after`), other 4xx are not, each with a clear failure type.
 */
export function classifyModelError(err: unknown): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof OpenAI.APIConnectionError) {
    return ApplicationFailure.create({
      type: FailureType.ModelUnavailable,
      message: `model endpoint unreachable: ${err.message}`,
    });
  }
  if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
    const status = err.status;
    const message = `model endpoint answered ${status}: ${err.message}`;
    if (RETRYABLE_STATUS.has(status) || status >= 500) {
      const delay = retryAfterMs(err.headers);
      return ApplicationFailure.create({
        type: status === 429 ? FailureType.ModelRateLimited : FailureType.ModelUnavailable,
        message,
        ...(delay !== undefined && { nextRetryDelay: delay }),
      });
    }
    return ApplicationFailure.create({
      type: MODEL_STATUS_NOT_RETRIED[status] ?? FailureType.ModelBadRequest,
      message,
      nonRetryable: true,
    });
  }
  const message = err instanceof Error ? err.message : String(err);
  return ApplicationFailure.create({
    type: FailureType.ModelBadResponse,
    message: `unusable model response: ${message}`,
  });
}

/** A model request with its conversation in hand. */
type Prompt = ModelRequest & { messages: ChatMessage[]; tools: ToolSpec[] };

const nodeSha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Where a turn run's conversation is cached (./conversation-cache.ts). */
export function conversationKey(ctx: Context): string | undefined {
  const turn = ctx.info.workflowExecution;
  return turn && `${turn.workflowId}/${turn.runId}`;
}

/**
 * The request's conversation: inline (older histories), or by reference — from this worker's copy
 * when it matches the recorded digest (./conversation-cache.ts), else read from the turn with the
 * `conversation` query (only the messages after the copy, or all of them) and checked against the
 * digest. A mismatch fails the attempt (retried).
 */
async function promptOf(req: ModelRequest, ctx: Context, cache: ConversationCache): Promise<Prompt> {
  if (!req.conversation) return { ...req, messages: req.messages ?? [], tools: req.tools ?? [] };
  const turn = ctx.info.workflowExecution;
  const key = conversationKey(ctx);
  if (!turn || !key) throw ApplicationFailure.nonRetryable('a conversation by reference needs the calling turn');
  const ref = req.conversation;
  const handle = ctx.client.workflow.getHandle(turn.workflowId, turn.runId);
  const cached = cache.get(key);
  let snapshot: ConversationSnapshot | undefined;
  if (cached && cached.messages.length <= ref.count) {
    const have = cached.messages.length;
    // Extends the copy by `added` if that makes exactly the recorded conversation.
    const extend = (added: ChatMessage[]): Prompt | undefined => {
      if (have + added.length !== ref.count) return undefined;
      const extended = extendChain(cached.digest, added, nodeSha256);
      if (extended.digest !== ref.digest) return undefined;
      const messages = [...cached.messages, ...added];
      cache.set(key, { messages, digest: ref.digest, tools: cached.tools, chars: cached.chars + extended.chars });
      return { ...req, messages, tools: cached.tools };
    };
    const expected = expectedNext(cached);
    const known = expected && extend(expected);
    if (known) return known;
    snapshot = await handle.query(conversationQuery, { count: ref.count, from: have, tools: false });
    // A turn on code from before `from` answers with the whole conversation (no `from`): resolved below.
    if (snapshot.from === have) {
      const read = Array.isArray(snapshot.messages) ? extend(snapshot.messages) : undefined;
      if (read) return read;
      snapshot = undefined; // read it all again rather than trust the copy
    }
    cache.delete(key);
  }
  snapshot ??= await handle.query(conversationQuery, { count: ref.count });
  const resolved = resolveConversation(ref, snapshot, nodeSha256);
  if (resolved.type === 'invalid') {
    throw ApplicationFailure.create({
      type: FailureType.ConversationMismatch,
      message: `model call ${req.call}: ${resolved.error}`,
    });
  }
  const tools = snapshot.tools ?? [];
  cache.set(key, {
    messages: resolved.messages,
    digest: ref.digest,
    tools,
    chars: JSON.stringify(resolved.messages).length,
  });
  return { ...req, messages: resolved.messages, tools };
}

function toParams(req: Prompt, maxTokensField: MaxTokensField): ChatCompletionCreateParams {
  return {
    ...(req.output && {
      response_format: {
        type: 'json_schema' as const,
        json_schema: { name: req.output.name, schema: req.output.schema, strict: req.output.strict },
      },
    }),
    // The agent's settings next (extraBody may replace response_format); the fields Tiller sets win.
    ...(chatCompletionFields(req.settings, maxTokensField) as Partial<ChatCompletionCreateParams>),
    model: req.model,
    messages: req.messages as ChatCompletionCreateParams['messages'],
    ...(req.tools.length > 0 && {
      tools: req.tools.map((t) => ({
        type: 'function' as const,
        function: { name: t.name, description: t.description, parameters: t.parameters },
      })),
    }),
  };
}

function usageOf(u: OpenAI.CompletionUsage | null | undefined) {
  if (!u) return undefined;
  const inputTokens = u.prompt_tokens ?? 0;
  const outputTokens = u.completion_tokens ?? 0;
  return { inputTokens, outputTokens, totalTokens: u.total_tokens ?? inputTokens + outputTokens };
}

function bad(message: string): never {
  throw ApplicationFailure.create({
    type: FailureType.ModelBadResponse,
    message: `unusable model response: ${message}`,
  });
}

async function streamed(client: OpenAI, req: Prompt, signal: AbortSignal, heartbeat: (content: string) => void) {
  const stream = await client.chat.completions.create(
    { ...toParams(req, maxTokensFieldFor(client.baseURL)), stream: true, stream_options: { include_usage: true } },
    { signal },
  );
  let content = '';
  let sawContent = false;
  let finishReason: string | undefined;
  // Some providers repeat cumulative usage on many chunks: keep the last one, never sum.
  let usage: OpenAI.CompletionUsage | undefined;
  const calls: { id: string; name: string; arguments: string }[] = [];
  for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
    if (!chunk || typeof chunk !== 'object' || !Array.isArray(chunk.choices)) bad('stream chunk without choices');
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) {
      if (choice.finish_reason) finishReason = choice.finish_reason;
      const delta = choice.delta;
      if (!delta) continue;
      if (typeof delta.content === 'string') {
        if (content.length + delta.content.length > BOUNDS.modelResponseBytes)
          bad('streamed text past the size a turn records');
        content += delta.content;
        sawContent ||= delta.content.length > 0;
      }
      for (const tc of delta.tool_calls ?? []) {
        if (!Number.isInteger(tc.index) || tc.index < 0 || tc.index >= 1_000) bad('a tool call delta with a bad index');
        const slot = (calls[tc.index] ??= { id: '', name: '', arguments: '' });
        if (typeof tc.id === 'string' && tc.id) slot.id = tc.id;
        if (typeof tc.function?.name === 'string') slot.name += tc.function.name;
        if (typeof tc.function?.arguments === 'string') slot.arguments += tc.function.arguments;
        if (slot.name.length + slot.arguments.length > BOUNDS.modelResponseBytes)
          bad('a streamed tool call past the size a turn records');
      }
    }
    // Every chunk proves the call alive; the worker throttles what reaches the server (the batching).
    heartbeat(content);
  }
  return { content: sawContent ? content : null, calls: calls.filter(Boolean), finishReason, usage };
}

async function unary(client: OpenAI, req: Prompt, signal: AbortSignal) {
  const completion = await client.chat.completions.create(
    { ...toParams(req, maxTokensFieldFor(client.baseURL)), stream: false },
    { signal },
  );
  const choice = completion?.choices?.[0];
  if (!choice?.message) bad('no choices in the completion');
  const calls = (choice.message.tool_calls ?? []).flatMap((tc) =>
    tc.type === 'function' ? [{ id: tc.id, name: tc.function.name, arguments: tc.function.arguments ?? '' }] : [],
  );
  return {
    content: choice.message.content ?? null,
    calls,
    finishReason: choice.finish_reason ?? undefined,
    usage: completion.usage,
  };
}

/**
 * The response as the workflow gets it (and history records it): plain strings where the protocol
 * says strings, and no bigger than `BOUNDS.modelResponseBytes` — a model that answers with more is
 * retried like any unusable response, never recorded.
 */
function assistantMessage(
  raw: { content: unknown; calls: { id?: unknown; name?: unknown; arguments?: unknown }[] },
  call: number,
): AssistantMessage {
  if (raw.content !== null && typeof raw.content !== 'string') bad('message content is not a string');
  const message: AssistantMessage = { role: 'assistant', content: raw.content };
  if (raw.calls.length > 0) {
    message.tool_calls = raw.calls.map((c, i) => {
      if (typeof c.name !== 'string' || !c.name) bad(`tool call ${i} has no function name`);
      if (c.id !== undefined && c.id !== null && typeof c.id !== 'string') bad(`tool call ${i} has a non-string id`);
      const args = c.arguments ?? '';
      if (typeof args !== 'string') bad(`tool call ${i} has arguments that are not a JSON string`);
      return {
        id: (c.id as string) || `call_${call}_${i}`,
        type: 'function',
        function: { name: c.name, arguments: args },
      };
    });
  }
  const bytes = jsonBytes(message);
  if (bytes > BOUNDS.modelResponseBytes)
    bad(`${bytes} bytes, more than the ${BOUNDS.modelResponseBytes} a turn records`);
  return message;
}

/**
 * An answer checked against the agent's output schema: JSON nested at most `BOUNDS.jsonDepth` levels, valid,
 * and as parsed plain JSON of at most `BOUNDS.long` characters (it is recorded verbatim); else why not,
 * bounded, for the model to read.
 */
export function checkOutput(content: string | null, schema: ZodType): OutputCheck {
  let json: unknown;
  try {
    json = JSON.parse(content ?? '');
  } catch (err) {
    return { ok: false, error: `the answer is not JSON (${clip((err as Error).message, 200)})` };
  }
  // Before the schema and JSON.stringify walk it (recursively): a deep answer would be recorded verbatim,
  // or overflow the stack and be called "not JSON".
  if (deeperThan(json, BOUNDS.jsonDepth))
    return { ok: false, error: `the answer is nested deeper than ${BOUNDS.jsonDepth} levels` };
  const parsed = schema.safeParse(json);
  if (!parsed.success) return { ok: false, error: formatZodError(parsed.error) };
  let text: string | undefined;
  try {
    text = JSON.stringify(parsed.data);
  } catch (err) {
    return { ok: false, error: `the parsed answer is not JSON: ${clip((err as Error).message, 200)}` };
  }
  if (text === undefined) return { ok: true, value: null };
  if (text.length > BOUNDS.long)
    return { ok: false, error: `the answer is ${text.length} characters of JSON, more than ${BOUNDS.long}` };
  return { ok: true, value: JSON.parse(text) };
}

export interface ModelActivityDeps {
  /** The client to use, or a factory called once per worker. Build it with `maxRetries: 0`. */
  client: OpenAI;
  /** The worker's copy of its turns' conversations (shared with the tool activities, which add results). */
  conversations?: ConversationCache;
  /** The output schemas of the agents with structured output, by agent name. */
  outputs?: ReadonlyMap<string, ZodType>;
  /** Named providers' clients (`createWorker({ providers })`), for agents with `provider`. */
  providers?: ReadonlyMap<string, OpenAI>;
}

export function createModelActivities({
  client,
  conversations = new ConversationCache(),
  outputs = new Map(),
  providers = new Map(),
}: ModelActivityDeps) {
  // Every key this worker holds is redacted from every failure (an endpoint may echo any of them).
  const secrets = [client, ...providers.values()].map((c) => c.apiKey ?? undefined);
  return {
    async callModel(req: ModelRequest): Promise<ModelResponse> {
      const ctx = Context.current();
      const started = performance.now();
      // The heartbeat carries the text so far: subscribers read it with DescribeWorkflowExecution
      // (no history events); see src/core/live-text.ts.
      let latest = '';
      // The first heartbeat waits one throttle interval: a call that is over by then (a quick answer,
      // a tool call) costs the server no heartbeat at all, and its text reaches followers with its
      // MODEL_CALLED event as soon as it would have from a heartbeat.
      let live = false;
      // At most one heartbeat per interval reaches the SDK (the newest text, a trailing one after a
      // burst): the SDK converts and logs every heartbeat it is handed before it throttles them, and a
      // stream has a chunk every few ms — per chunk, that was a payload of up to 16 KB each time.
      let sentAt = -Infinity;
      let trailing: ReturnType<typeof setTimeout> | undefined;
      const send = () => {
        trailing = undefined;
        sentAt = performance.now();
        ctx.heartbeat(modelProgress(req.call, ctx.info.attempt, latest));
      };
      const heartbeat = (content: string) => {
        latest = content;
        if (!live || trailing) return;
        const wait = sentAt + LIVE_TEXT_HEARTBEAT_MS - performance.now();
        if (wait <= 0) send();
        else trailing = setTimeout(send, wait);
      };
      const goLive = setTimeout(() => {
        live = true;
        heartbeat(latest);
      }, LIVE_TEXT_HEARTBEAT_MS);
      // Non-streaming calls produce nothing to heartbeat on; keep the activity visibly alive.
      const keepAlive = setInterval(() => heartbeat(latest), 5_000);
      try {
        const chosen = req.provider === undefined ? client : providers.get(req.provider);
        if (!chosen)
          throw ApplicationFailure.create({
            type: FailureType.ModelNotFound,
            message: `no model provider ${req.provider} on this worker; it has: ${[...providers.keys()].join(', ') || '(none)'}`,
            nonRetryable: true,
          });
        const prompt = await promptOf(req, ctx, conversations);
        const raw = req.stream
          ? await streamed(chosen, prompt, ctx.cancellationSignal, heartbeat)
          : await unary(chosen, prompt, ctx.cancellationSignal);
        const message = assistantMessage(raw, req.call);
        const key = req.conversation && conversationKey(ctx);
        if (key) conversations.answered(key, message);
        const usage = usageOf(raw.usage);
        let output: OutputCheck | undefined;
        if (req.output && !message.tool_calls?.length) {
          const schema = outputs.get(req.output.agent);
          if (!schema)
            throw ApplicationFailure.nonRetryable(`agent ${req.output.agent} has no output schema on this worker`);
          output = checkOutput(message.content, schema);
        }
        return {
          ...(output && { output }),
          message,
          usage: usage ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
          usageSource: usage ? (req.stream ? 'stream' : 'response') : 'none',
          ...(raw.finishReason !== undefined && { finishReason: raw.finishReason }),
          durationMs: Math.round((performance.now() - started) * 100) / 100,
        };
      } catch (err) {
        if (ctx.cancellationSignal.aborted) throw err;
        const failure = classifyModelError(err);
        const message = redact(failure.message, secrets);
        if (message === failure.message) throw failure;
        throw ApplicationFailure.create({
          type: failure.type ?? FailureType.ModelError,
          message,
          nonRetryable: failure.nonRetryable ?? false,
          ...(failure.nextRetryDelay != null && { nextRetryDelay: failure.nextRetryDelay }),
        });
      } finally {
        clearTimeout(goLive);
        clearTimeout(trailing);
        clearInterval(keepAlive);
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
