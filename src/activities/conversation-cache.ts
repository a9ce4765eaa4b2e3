/**
 * The worker's copy of each turn's conversation, so a model call rarely needs the `conversation`
 * query (src/core/conversation.ts) — a round trip through the server and the workflow — to learn what
 * it already mostly knows: the messages it read last time, the answer it gave then, and (when the tool
 * ran in this worker, as local tools and eagerly dispatched activities do) each tool's result.
 *
 * For call n the model activity rebuilds the conversation from that copy and checks it against the
 * digest the turn recorded. It matches → no query at all. It does not (a tool that never ran — denied,
 * unknown, a sub-agent —, a result from another worker, a retry) → the query, for only the messages
 * after the copy (`from`), and if even that does not match, the whole conversation as without a cache.
 * Every message used was checked against the recorded digest, so the cache can make a call slower,
 * never wrong.
 *
 * Bounded by characters of message JSON, least recently used turns first: a turn that has ended or
 * moved to another worker costs memory only until others push it out.
 */
import { canonicalJson } from '../core/digest';
import type { AssistantMessage, ChatMessage, ToolSpec } from '../core/spec';

export interface CachedConversation {
  /** Messages [0, n) of the turn run, checked against its recorded digest. */
  messages: ChatMessage[];
  /** The digest chain over `messages`. */
  digest: string;
  tools: ToolSpec[];
  /** Characters of the messages' JSON (what the bound counts). */
  chars: number;
  /** The answer this worker gave to the last call, i.e. message n if the turn recorded it as given. */
  answer?: AssistantMessage;
  /** Results of the answer's tool calls that ran in this worker, by tool call id. */
  results?: Map<string, string>;
}

/** Default bound: 16 Mi characters of message JSON per worker. */
export const CONVERSATION_CACHE_CHARS = 16 * 2 ** 20;

/** Extends a digest chain (see src/core/conversation.ts) by `messages`, counting the characters hashed. */
export function extendChain(
  digest: string,
  messages: readonly ChatMessage[],
  hash: (text: string) => string,
): { digest: string; chars: number } {
  let chars = 0;
  for (const m of messages) {
    const text = canonicalJson(m);
    chars += text.length;
    digest = hash(digest + text);
  }
  return { digest, chars };
}

/**
 * The messages after `entry.messages` as this worker expects the turn to have them: its last answer,
 * then one result per tool call in the answer's order. Undefined when a result is missing.
 */
export function expectedNext(entry: CachedConversation): ChatMessage[] | undefined {
  const { answer, results } = entry;
  if (!answer) return undefined;
  const next: ChatMessage[] = [answer];
  for (const call of answer.tool_calls ?? []) {
    const content = results?.get(call.id);
    if (content === undefined) return undefined;
    next.push({ role: 'tool', tool_call_id: call.id, content });
  }
  return next;
}

export class ConversationCache {
  /** In least-recently-used order (a Map iterates in insertion order; a hit re-inserts). */
  private readonly entries = new Map<string, CachedConversation>();
  private chars = 0;

  constructor(private readonly maxChars = CONVERSATION_CACHE_CHARS) {}

  get(key: string): CachedConversation | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: CachedConversation): void {
    this.delete(key);
    if (entry.chars > this.maxChars) return;
    this.entries.set(key, entry);
    this.chars += entry.chars;
    this.trim();
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.chars -= entry.chars;
  }

  /** The model activity answered: what the turn will most likely append next. */
  answered(key: string, answer: AssistantMessage): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    entry.answer = answer;
    entry.results = new Map();
  }

  /** A tool of the turn ran in this worker and returned `content` (what the model will read). */
  toolResult(key: string, toolCallId: string, content: string): void {
    const entry = this.entries.get(key);
    if (!entry?.results) return;
    // Counted against the bound with the rest of the entry.
    const before = entry.results.get(toolCallId)?.length ?? 0;
    entry.results.set(toolCallId, content);
    entry.chars += content.length - before;
    this.chars += content.length - before;
    this.trim();
  }

  private trim(): void {
    for (const [oldest, old] of this.entries) {
      if (this.chars <= this.maxChars) break;
      this.entries.delete(oldest);
      this.chars -= old.chars;
    }
  }

  /** Turns held (for tests). */
  get size(): number {
    return this.entries.size;
  }
}
