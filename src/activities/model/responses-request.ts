/**
 * The Responses API request (OpenAI's `POST /v1/responses`) from a prompt: the agent's settings as
 * Responses fields, the conversation as input items (reasoning items carried), and where the provider
 * keeps responses, only what follows the last one (`previous_response_id`). Pure.
 */
import type { ModelSettings } from '../../core/model-settings';
import type { ChatMessage } from '../../core/spec';
import type { Prompt } from './prompt';

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * The agent's model settings as Responses fields, `extraBody` merged last (its `reasoning` merged into
 * the effort's). `seed` and `stop` have no Responses field: they are left out (OpenAI refuses unknown
 * fields); a provider that takes them can be given them through `extraBody`.
 */
export function responsesFields(settings: ModelSettings | undefined): Json {
  if (!settings) return {};
  const s = settings;
  const choice = s.toolChoice;
  const extra: Json = s.extraBody ?? {};
  const reasoning = {
    ...(s.reasoningEffort !== undefined && { effort: s.reasoningEffort }),
    ...(isObject(extra.reasoning) && extra.reasoning),
  };
  return {
    ...(s.temperature !== undefined && { temperature: s.temperature }),
    ...(s.topP !== undefined && { top_p: s.topP }),
    ...(s.maxTokens !== undefined && { max_output_tokens: s.maxTokens }),
    ...(choice !== undefined && {
      tool_choice:
        choice === 'auto' || choice === 'none' || choice === 'required' ? choice : { type: 'function', name: choice },
    }),
    ...(s.parallelToolCalls !== undefined && { parallel_tool_calls: s.parallelToolCalls }),
    ...extra,
    ...(Object.keys(reasoning).length > 0 && { reasoning }),
  };
}

/**
 * The conversation as Responses input items, each typed as the API reference types it (`EasyInputMessage`
 * with `type: 'message'`, `function_call`, `function_call_output`, `reasoning` as returned): a server
 * that reads items strictly (llama-server) cannot tell an untyped earlier answer from anything else.
 * An assistant message becomes its reasoning items (kept from
 * its response, before what it said, as the API returned them), its text as an assistant message, and
 * each tool call as a `function_call` item; a tool result becomes a `function_call_output` item.
 * `withStoredReasoning` false: reasoning items without `encrypted_content` are left out — they only point
 * at a kept response's items, which a provider that keeps nothing (or has forgotten it) cannot resolve.
 */
export function inputItems(messages: readonly ChatMessage[], withStoredReasoning: boolean): Json[] {
  const items: Json[] = [];
  for (const m of messages) {
    switch (m.role) {
      case 'system':
      case 'user':
        items.push({ type: 'message', role: m.role, content: m.content });
        break;
      case 'tool':
        items.push({ type: 'function_call_output', call_id: m.tool_call_id, output: m.content });
        break;
      case 'assistant':
        for (const r of m.responses?.reasoning ?? []) {
          if (isObject(r) && (withStoredReasoning || typeof r.encrypted_content === 'string')) items.push(r);
        }
        if (m.content) items.push({ type: 'message', role: 'assistant', content: m.content });
        for (const tc of m.tool_calls ?? [])
          items.push({
            type: 'function_call',
            call_id: tc.id,
            name: tc.function.name,
            arguments: tc.function.arguments,
          });
        break;
    }
  }
  return items;
}

/** Where the request continues from: the last answer the provider kept, and the messages after it. */
function continuation(messages: readonly ChatMessage[]): { id: string; after: ChatMessage[] } | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    const id = m.role === 'assistant' ? m.responses?.id : undefined;
    if (typeof id === 'string' && id) {
      const after = messages.slice(i + 1);
      // Nothing new to say: send it all (a request with no input is not a continuation).
      return after.length > 0 ? { id, after } : undefined;
    }
  }
  return undefined;
}

/**
 * The request body. Leading system messages become `instructions`, sent with every call: the API does
 * not carry `instructions` over `previous_response_id`, so each call states them afresh (and a chain of
 * kept responses never holds stale ones); a system message later in the conversation stays an input
 * item in its place. `continueFrom` false: the full input, even where a kept response could be used.
 */
export function responsesParams(req: Prompt, store: boolean, continueFrom = true): Json {
  let lead = 0;
  while (req.messages[lead]?.role === 'system') lead++;
  const instructions = req.messages
    .slice(0, lead)
    .map((m) => m.content as string)
    .join('\n\n');
  const rest = req.messages.slice(lead);
  const from = store && continueFrom ? continuation(rest) : undefined;
  const settings = responsesFields(req.settings);
  const include = Array.isArray(settings.include) ? settings.include.filter((i) => typeof i === 'string') : [];
  if (!store && !include.includes('reasoning.encrypted_content')) include.push('reasoning.encrypted_content');
  return {
    // The structured output format first: the agent's `extraBody` may replace it, as in Chat Completions.
    ...(req.output && {
      text: {
        format: { type: 'json_schema', name: req.output.name, schema: req.output.schema, strict: req.output.strict },
      },
    }),
    ...settings,
    // The fields Tiller sets win.
    model: req.model,
    ...(instructions && { instructions }),
    input: inputItems(from ? from.after : rest, store && !!from),
    ...(from && { previous_response_id: from.id }),
    ...(req.tools.length > 0 && {
      tools: req.tools.map((t) => ({
        type: 'function',
        name: t.name,
        description: t.description,
        parameters: t.parameters,
        // The tools' schemas come from zod and need not fit strict mode (every property required).
        strict: false,
      })),
    }),
    store,
    ...(include.length > 0 && { include }),
  };
}
