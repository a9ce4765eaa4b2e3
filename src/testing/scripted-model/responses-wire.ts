/**
 * The Responses API wire shapes of a normal scripted answer, from OpenAI's API reference: the `response`
 * object (`POST /v1/responses` without `stream`) and the typed events of a stream, in the documented
 * order, each with its `sequence_number`. Pure, no Node imports.
 *
 * @module
 */
import type { FullUsage, ResolvedToolCall } from './wire';
import { splitText } from './wire';

/** One normal answer on the Responses API, resolved: ids, the items it says and its usage. */
export interface ResponsesAnswer {
  id: string;
  /** Unix seconds. */
  createdAt: number;
  model: string;
  /** A reasoning item first: its summary, and its opaque `encrypted_content` when the request included it. */
  reasoning?: { id: string; summary: string; encryptedContent?: string };
  /** The text answer (a `message` item), if any. */
  message?: { id: string; text: string };
  /** Function calls, each a `function_call` item (`id` is the item's, `call.id` the `call_id`). */
  calls: { itemId: string; call: ResolvedToolCall }[];
  /** Cut short: `status: incomplete` with this reason. */
  incomplete?: 'max_output_tokens' | 'content_filter';
  usage: FullUsage;
  /** Request fields the response object repeats. */
  echo: {
    instructions: unknown;
    previousResponseId: unknown;
    store: boolean;
    tools: unknown;
    toolChoice: unknown;
    text: unknown;
  };
}

type Json = Record<string, unknown>;

/** The usage object, in the Responses API's names. */
function usageBody(u: FullUsage): Json {
  return {
    input_tokens: u.prompt_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: u.completion_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: u.total_tokens,
  };
}

function reasoningItem(r: NonNullable<ResponsesAnswer['reasoning']>, done: boolean): Json {
  return {
    id: r.id,
    type: 'reasoning',
    summary: done ? [{ type: 'summary_text', text: r.summary }] : [],
    ...(done && r.encryptedContent !== undefined && { encrypted_content: r.encryptedContent }),
  };
}

function textPart(text: string): Json {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

function messageItem(a: ResponsesAnswer, done: boolean): Json {
  const m = a.message!;
  return {
    id: m.id,
    type: 'message',
    status: done ? (a.incomplete ? 'incomplete' : 'completed') : 'in_progress',
    role: 'assistant',
    content: done ? [textPart(m.text)] : [],
  };
}

function callItem(c: ResponsesAnswer['calls'][number], done: boolean): Json {
  return {
    id: c.itemId,
    type: 'function_call',
    status: done ? 'completed' : 'in_progress',
    arguments: done ? c.call.arguments : '',
    call_id: c.call.id,
    name: c.call.name,
  };
}

/** The output items, whole. */
function outputItems(a: ResponsesAnswer): Json[] {
  return [
    ...(a.reasoning ? [reasoningItem(a.reasoning, true)] : []),
    ...(a.message ? [messageItem(a, true)] : []),
    ...a.calls.map((c) => callItem(c, true)),
  ];
}

/** The `response` object: whole (`final`), or as `response.created` shows it (in progress, no output). */
export function responseBody(a: ResponsesAnswer, final = true): Json {
  return {
    id: a.id,
    object: 'response',
    created_at: a.createdAt,
    status: final ? (a.incomplete ? 'incomplete' : 'completed') : 'in_progress',
    error: null,
    incomplete_details: final && a.incomplete ? { reason: a.incomplete } : null,
    instructions: a.echo.instructions ?? null,
    model: a.model,
    output: final ? outputItems(a) : [],
    parallel_tool_calls: true,
    previous_response_id: a.echo.previousResponseId ?? null,
    store: a.echo.store,
    text: a.echo.text ?? { format: { type: 'text' } },
    tool_choice: a.echo.toolChoice ?? 'auto',
    tools: a.echo.tools ?? [],
    usage: final ? usageBody(a.usage) : null,
    metadata: {},
  };
}

/** One event of a stream: its type (the SSE `event:` name) and its data (which repeats the type). */
export interface ResponsesEvent {
  type: string;
  data: Json;
  /** The text of an `output_text` delta (the content chunks a step's typing delay and break count). */
  text?: string;
}

/** Builds the events of one streamed answer, numbering them as it goes. */
export class ResponsesEventBuilder {
  private sequence = 0;

  constructor(
    private readonly answer: ResponsesAnswer,
    private readonly chunkSize: number,
  ) {}

  private event(type: string, fields: Json, text?: string): ResponsesEvent {
    return { type, data: { type, ...fields, sequence_number: this.sequence++ }, ...(text !== undefined && { text }) };
  }

  /** Every event, in order: created, in progress, each item's events, then completed (or incomplete). */
  events(): ResponsesEvent[] {
    const a = this.answer;
    const out = [
      this.event('response.created', { response: responseBody(a, false) }),
      this.event('response.in_progress', { response: responseBody(a, false) }),
    ];
    let index = 0;
    if (a.reasoning) out.push(...this.reasoningEvents(a.reasoning, index++));
    if (a.message) out.push(...this.messageEvents(index++));
    for (const c of a.calls) out.push(...this.callEvents(c, index++));
    const end = a.incomplete ? 'response.incomplete' : 'response.completed';
    out.push(this.event(end, { response: responseBody(a) }));
    return out;
  }

  private reasoningEvents(r: NonNullable<ResponsesAnswer['reasoning']>, output_index: number): ResponsesEvent[] {
    const at = { item_id: r.id, output_index, summary_index: 0 };
    return [
      this.event('response.output_item.added', { output_index, item: reasoningItem(r, false) }),
      this.event('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } }),
      ...splitText(r.summary, this.chunkSize).map((delta) =>
        this.event('response.reasoning_summary_text.delta', { ...at, delta }),
      ),
      this.event('response.reasoning_summary_text.done', { ...at, text: r.summary }),
      this.event('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text: r.summary } }),
      this.event('response.output_item.done', { output_index, item: reasoningItem(r, true) }),
    ];
  }

  private messageEvents(output_index: number): ResponsesEvent[] {
    const m = this.answer.message!;
    const at = { item_id: m.id, output_index, content_index: 0 };
    return [
      this.event('response.output_item.added', { output_index, item: messageItem(this.answer, false) }),
      this.event('response.content_part.added', { ...at, part: textPart('') }),
      ...splitText(m.text, this.chunkSize).map((delta) =>
        this.event('response.output_text.delta', { ...at, delta, logprobs: [] }, delta),
      ),
      this.event('response.output_text.done', { ...at, text: m.text, logprobs: [] }),
      this.event('response.content_part.done', { ...at, part: textPart(m.text) }),
      this.event('response.output_item.done', { output_index, item: messageItem(this.answer, true) }),
    ];
  }

  private callEvents(c: ResponsesAnswer['calls'][number], output_index: number): ResponsesEvent[] {
    const at = { item_id: c.itemId, output_index };
    return [
      this.event('response.output_item.added', { output_index, item: callItem(c, false) }),
      ...splitText(c.call.arguments, this.chunkSize).map((delta) =>
        this.event('response.function_call_arguments.delta', { ...at, delta }),
      ),
      this.event('response.function_call_arguments.done', { ...at, arguments: c.call.arguments }),
      this.event('response.output_item.done', { output_index, item: callItem(c, true) }),
    ];
  }
}

/** One event as SSE text: its `event:` name and its `data:` line. */
export function sseText(e: ResponsesEvent): string {
  return `event: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`;
}
