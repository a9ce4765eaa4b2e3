/**
 * An agent's model settings (`defineAgent({ modelSettings })`): validated when the agent is defined,
 * recorded in its spec and in `AGENT_STARTED`, and sent as Chat Completions fields on every model call
 * of the agent (`chatCompletionFields`). Pure: safe in workflow code, the worker and clients.
 */
import { z } from 'zod';
import { BOUNDS, deeperThan } from './bounds';

/**
 * Request fields Tiller sets itself, in Chat Completions and the Responses API: `extraBody` may not
 * replace them. (`store` and `include` are not among them: Chat Completions has a `store` of its own,
 * and a Responses call merges an `include` with Tiller's.)
 */
export const RESERVED_BODY_FIELDS = [
  'model',
  'messages',
  'tools',
  'stream',
  'stream_options',
  'input',
  'instructions',
  'previous_response_id',
] as const;

/** `extraBody` as JSON is at most this many characters. */
export const MAX_EXTRA_BODY_CHARS = 16_000;

const toolName = z
  .string()
  .regex(/^[a-zA-Z0-9_-]{1,128}$/, 'must be "auto", "none", "required" or a tool name (letters, digits, _ or -)');

const stopText = z.string().min(1).max(BOUNDS.name);

const extraBody = z.record(z.string(), z.unknown()).superRefine((body, ctx) => {
  const reserved = RESERVED_BODY_FIELDS.filter((k) => Object.hasOwn(body, k));
  if (reserved.length)
    ctx.addIssue({ code: 'custom', message: `may not set ${reserved.join(', ')} (Tiller sets them)` });
  if (deeperThan(body, BOUNDS.jsonDepth)) {
    ctx.addIssue({ code: 'custom', message: `nests deeper than ${BOUNDS.jsonDepth} levels` });
    return;
  }
  const bad = notJson(body);
  if (bad) {
    ctx.addIssue({ code: 'custom', message: `is not plain JSON (${bad})` });
    return;
  }
  const chars = JSON.stringify(body).length;
  if (chars > MAX_EXTRA_BODY_CHARS)
    ctx.addIssue({ code: 'custom', message: `is ${chars} characters of JSON, more than ${MAX_EXTRA_BODY_CHARS}` });
});

/** What makes `value` other than plain JSON (a function, undefined, a non-finite number, a class instance), if anything. */
function notJson(value: unknown): string | undefined {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return `a non-finite number`;
      continue;
    }
    if (typeof v !== 'object') return `a value of type ${typeof v}`;
    const proto = Object.getPrototypeOf(v);
    if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) return 'an object that is not plain';
    for (const child of Object.values(v)) stack.push(child);
  }
  return undefined;
}

/**
 * An agent's model parameters (`defineAgent({ modelSettings })`), sent on each of its model calls:
 * `temperature`, `topP`, `maxTokens`, `toolChoice`, `parallelToolCalls`, `reasoningEffort`, `seed`, `stop`
 * and `extraBody`. Unknown keys are refused.
 */
export const ModelSettings = z.strictObject({
  /** Sampling temperature, 0–2. */
  temperature: z.number().min(0).max(2).optional(),
  /** Nucleus sampling, 0–1. */
  topP: z.number().min(0).max(1).optional(),
  /** Tokens the model may generate per call: `max_completion_tokens` on api.openai.com, `max_tokens` elsewhere. */
  maxTokens: z.number().int().min(1).max(10_000_000).optional(),
  /** `auto`, `none`, `required`, or the name of one of the agent's tools (the model must call it). */
  toolChoice: toolName.optional(),
  /** Whether the model may ask for several tool calls in one response. */
  parallelToolCalls: z.boolean().optional(),
  /** For reasoning models. */
  reasoningEffort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).optional(),
  seed: z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER).optional(),
  /** Up to 4 stop sequences. */
  stop: z.union([stopText, z.array(stopText).min(1).max(4)]).optional(),
  /** Provider-specific request fields, merged last (plain JSON, at most 16,000 characters). */
  extraBody: extraBody.optional(),
});
/** An agent's model parameters; see the {@link ModelSettings} schema. */
export type ModelSettings = z.infer<typeof ModelSettings>;

/** Which request field carries `maxTokens`. */
export type MaxTokensField = 'max_tokens' | 'max_completion_tokens';

/** OpenAI's own API wants `max_completion_tokens` (its reasoning models refuse `max_tokens`); others know `max_tokens`. */
export function maxTokensFieldFor(baseURL: string | undefined): MaxTokensField {
  try {
    return new URL(baseURL ?? 'https://api.openai.com/v1').hostname === 'api.openai.com'
      ? 'max_completion_tokens'
      : 'max_tokens';
  } catch {
    return 'max_tokens';
  }
}

/** The Chat Completions fields for `settings`, `extraBody` merged last. */
export function chatCompletionFields(
  settings: ModelSettings | undefined,
  maxTokensField: MaxTokensField = 'max_tokens',
): Record<string, unknown> {
  if (!settings) return {};
  const s = settings;
  const choice = s.toolChoice;
  return {
    ...(s.temperature !== undefined && { temperature: s.temperature }),
    ...(s.topP !== undefined && { top_p: s.topP }),
    ...(s.maxTokens !== undefined && { [maxTokensField]: s.maxTokens }),
    ...(choice !== undefined && {
      tool_choice:
        choice === 'auto' || choice === 'none' || choice === 'required'
          ? choice
          : { type: 'function', function: { name: choice } },
    }),
    ...(s.parallelToolCalls !== undefined && { parallel_tool_calls: s.parallelToolCalls }),
    ...(s.reasoningEffort !== undefined && { reasoning_effort: s.reasoningEffort }),
    ...(s.seed !== undefined && { seed: s.seed }),
    ...(s.stop !== undefined && { stop: s.stop }),
    ...s.extraBody,
  };
}
