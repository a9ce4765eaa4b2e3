/**
 * A `fetch` for the OpenAI client that records every Chat Completions and Responses API exchange with
 * the real server — the request body as sent and the response body verbatim — so a test can compare what
 * Tiller recorded with what the server said (its text, its tool calls, its own usage).
 *
 * It can also make the model call a given tool at a given step (`steer`, `toolPlan`): SmolLM2-135M never
 * starts a tool call by itself, llama-server ignores a `tool_choice` that names a function (it takes only
 * "auto", "none" and "required"), and its "required" lets the model write prose before the call (the
 * grammar allows content first), which this model does until `max_tokens`. So a forced step offers only
 * that tool, with "required", and begins the assistant's answer with the chat template's `<tool_call>`
 * opening (llama-server continues a last assistant message): the model then writes the call's arguments,
 * constrained by the tool's schema. An agent's `modelSettings.toolChoice` holds for every call of a turn,
 * so a turn that needs read → delete → answer sets this per step, as a client-side policy would.
 */
export interface Exchange {
  /** The request body as Tiller sent it (after `steer`). */
  body: Record<string, any>;
  status: number;
  /** The response body, verbatim (SSE text for a stream). */
  text: string;
  /** The `data:` payloads of a stream, parsed (`[DONE]` left out); empty for a JSON response. */
  chunks: Record<string, any>[];
}

/** The request body to send instead of Tiller's, or undefined to send Tiller's as it is. */
export type Steer = (body: Record<string, any>) => Record<string, any> | undefined;

export interface WireTap {
  fetch: typeof fetch;
  /** The exchanges whose last user message is `input`, oldest first. */
  exchanges(input: string): Promise<Exchange[]>;
  /** The exchanges with `input` among their user messages (a turn's every call, its retries too), oldest first. */
  exchangesWith(input: string): Promise<Exchange[]>;
  /** Rewrites every request whose last user message is `input`. */
  steer(input: string, fn: Steer): void;
  /** Rewrites every request with `input` among its user messages (where no `steer` applies). */
  steerTurn(input: string, fn: Steer): void;
}

/** A request's messages: Chat Completions' `messages`, or the Responses API's `input` items. */
function messagesOf(body: Record<string, any>): { type?: string; role?: string; content?: unknown }[] {
  if (Array.isArray(body.messages)) return body.messages;
  return Array.isArray(body.input) ? body.input : [];
}

/** The text of each user message (a Responses message's content may be a string or `input_text` parts). */
export function userTexts(body: Record<string, any>): string[] {
  return messagesOf(body)
    .filter((m) => m.role === 'user')
    .map((m) =>
      Array.isArray(m.content) ? m.content.map((p: { text?: unknown }) => p.text ?? '').join('') : m.content,
    )
    .filter((t): t is string => typeof t === 'string');
}

export function lastUserText(body: Record<string, any>): string | undefined {
  const user = [...messagesOf(body)].reverse().find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : undefined;
}

export function sseData(text: string): Record<string, any>[] {
  return text
    .split(/\r?\n/)
    .filter((l) => l.startsWith('data:'))
    .map((l) => l.slice(5).trim())
    .filter((d) => d && d !== '[DONE]')
    .map((d) => JSON.parse(d) as Record<string, any>);
}

export function createWireTap(): WireTap {
  const recorded: { input: string | undefined; users: string[]; exchange: Promise<Exchange> }[] = [];
  const steers = new Map<string, Steer>();
  const turnSteers = new Map<string, Steer>();

  const tapped = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const path = String(url);
    if (typeof init?.body !== 'string' || !(path.endsWith('/chat/completions') || path.endsWith('/responses')))
      return fetch(url, init);
    const sent = JSON.parse(init.body) as Record<string, any>;
    const input = lastUserText(sent);
    const users = userTexts(sent);
    const turn = users.find((u) => turnSteers.has(u));
    const steer =
      (input === undefined ? undefined : steers.get(input)) ?? (turn === undefined ? undefined : turnSteers.get(turn));
    const body = steer?.(sent) ?? sent;
    const res = await fetch(url, { ...init, body: JSON.stringify(body) });
    const copy = res.clone();
    const exchange = copy.text().then((text) => ({
      body,
      status: res.status,
      text,
      chunks: body.stream && res.ok ? sseData(text) : [],
    }));
    // A stream aborted mid-way (a stalled server given up) rejects here: handled, for those who never ask.
    exchange.catch(() => undefined);
    recorded.push({ input, users, exchange });
    return res;
  };

  return {
    fetch: tapped as typeof fetch,
    exchanges: (input) => Promise.all(recorded.filter((r) => r.input === input).map((r) => r.exchange)),
    exchangesWith: (input) => Promise.all(recorded.filter((r) => r.users.includes(input)).map((r) => r.exchange)),
    steer: (input, fn) => void steers.set(input, fn),
    steerTurn: (input, fn) => void turnSteers.set(input, fn),
  };
}

/** The model's answers after the last user message: how far into its plan a turn is. */
export function answersSoFar(body: Record<string, any>): number {
  const messages: { role?: string }[] = Array.isArray(body.messages) ? body.messages : [];
  let lastUser = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user') lastUser = i;
  });
  return messages.slice(lastUser + 1).filter((m) => m.role === 'assistant').length;
}

/** What llama-server's chat template (scripts/ensure-llama.js) opens a tool call with. */
export const TOOL_CALL_OPENING = '<tool_call>\n';

/**
 * A steer that makes the model's answer `n` (from 0) call the tool `plan[n]` (`'none'`: answer in text);
 * past the plan, or where the plan has `undefined`, the request is left as it is. See the module's comment.
 * llama-server does not hold to `parallel_tool_calls: false`: an answer may carry several calls of the tool.
 */
export function toolPlan(plan: (string | undefined)[]): Steer {
  return (body) => {
    const step = plan[answersSoFar(body)];
    if (step === undefined) return undefined;
    if (step === 'none') return { ...body, tool_choice: 'none' };
    const tools = (body.tools as { function: { name: string } }[]).filter((t) => t.function.name === step);
    return {
      ...body,
      tools,
      tool_choice: 'required',
      parallel_tool_calls: false,
      messages: [...body.messages, { role: 'assistant', content: TOOL_CALL_OPENING }],
    };
  };
}

/** The model's answers after the last user item of a Responses request: an answer is a run of its output items. */
export function responsesAnswersSoFar(body: Record<string, any>): number {
  const items: { type?: string; role?: string }[] = Array.isArray(body.input) ? body.input : [];
  const lastUser = items.map((i) => i.role).lastIndexOf('user');
  const answered = (i?: { type?: string; role?: string }) =>
    !!i && (i.role === 'assistant' || i.type === 'function_call' || i.type === 'reasoning');
  return items.slice(lastUser + 1).filter((item, i, after) => answered(item) && !answered(after[i - 1])).length;
}

/**
 * `toolPlan` for the Responses API: llama-server turns a Responses request into a chat one (the same
 * template, the same tool-call parser), so a forced step is the same — only that tool (Responses tools
 * name it at the top level), "required", and an assistant message item opening the call.
 */
export function responsesToolPlan(plan: (string | undefined)[]): Steer {
  return (body) => {
    const step = plan[responsesAnswersSoFar(body)];
    if (step === undefined) return undefined;
    if (step === 'none') return { ...body, tool_choice: 'none' };
    return {
      ...body,
      tools: (body.tools as { name: string }[]).filter((t) => t.name === step),
      tool_choice: 'required',
      parallel_tool_calls: false,
      input: [
        ...body.input,
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: TOOL_CALL_OPENING }] },
      ],
    };
  };
}

/** The server's own usage for an exchange: the last `usage` of a stream, or the JSON body's. */
export function serverUsage(e: Exchange): { prompt_tokens: number; completion_tokens: number } | undefined {
  if (e.chunks.length) return [...e.chunks].reverse().find((c) => c.usage)?.usage;
  try {
    return (JSON.parse(e.text) as { usage?: { prompt_tokens: number; completion_tokens: number } }).usage;
  } catch {
    return undefined;
  }
}

/** The answer text the server sent: the content deltas of a stream joined, or the JSON message's content. */
export function serverText(e: Exchange): string {
  if (e.chunks.length) return e.chunks.map((c) => c.choices?.[0]?.delta?.content ?? '').join('');
  return (JSON.parse(e.text) as { choices: { message: { content?: string | null } }[] }).choices[0]?.message
    .content as string;
}
