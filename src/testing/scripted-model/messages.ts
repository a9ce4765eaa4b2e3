/**
 * Reading the messages of a chat-completions request body, for scripts that answer from them. Pure,
 * no Node imports.
 *
 * @module
 */

/** A request message as scripts read it: every field unchecked. */
export interface LooseMessage {
  role?: unknown;
  content?: unknown;
  tool_call_id?: unknown;
  tool_calls?: unknown;
}

/** The object entries of `body.messages` (none if it is not an array). */
export function requestMessages(body: unknown): LooseMessage[] {
  const messages: unknown = body && typeof body === 'object' ? (body as { messages?: unknown }).messages : [];
  return Array.isArray(messages) ? messages.filter((m): m is LooseMessage => !!m && typeof m === 'object') : [];
}

/** A message's text: a string as is, the `text` of content parts joined, anything else empty. */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map(partText).join('');
}

function partText(part: unknown): string {
  if (typeof part === 'string') return part;
  if (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string') {
    return (part as { text: string }).text;
  }
  return '';
}

/** The content of the request's first system message (an agent's instructions), if it has one. */
export function systemPrompt(body: unknown): string | undefined {
  const system = requestMessages(body).find((m) => m.role === 'system');
  return system ? messageText(system.content) : undefined;
}
