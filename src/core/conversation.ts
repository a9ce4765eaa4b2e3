/**
 * The conversation passed to the model activity **by reference** (issue 5: history growth).
 *
 * Recording the whole transcript as the input of every model call makes a turn's history grow with
 * the square of its length. Instead the workflow records `{ count, digest }` — how many messages and
 * a SHA-256 chain over them — and the activity reads the messages themselves from the turn with the
 * `conversation` query (queries write nothing to history; the workflow already holds the messages,
 * and replay rebuilds them from the recorded results). The activity checks the chain, so a query
 * answered by anything but this exact conversation fails the attempt rather than prompting the model
 * with something else.
 *
 * Pure (no Node built-ins): the workflow and the activity both use it.
 */
import { canonicalJson, sha256Hex } from './digest';
import type { ChatMessage, ConversationRef, ConversationSnapshot } from './spec';

export type { ConversationRef, ConversationRequest, ConversationSnapshot } from './spec';

/** Extends a digest chain by `messages` (`hash`: SHA-256 hex of a string; activities pass node:crypto's). */
export function chainDigest(
  previous: string,
  messages: readonly ChatMessage[],
  hash: (text: string) => string = sha256Hex,
): string {
  let digest = previous;
  for (const m of messages) digest = hash(digest + canonicalJson(m));
  return digest;
}

/** Keeps the chain of a growing (append-only) message list up to date, hashing each message once. */
export class ConversationDigest {
  private digest = '';
  private hashed = 0;

  constructor(private readonly messages: readonly ChatMessage[]) {}

  ref(): ConversationRef {
    if (this.hashed < this.messages.length) {
      this.digest = chainDigest(this.digest, this.messages.slice(this.hashed));
      this.hashed = this.messages.length;
    }
    return { count: this.hashed, digest: this.digest };
  }
}

/** Checks a query's answer against the reference; returns the messages of the call, or why not. */
export function resolveConversation(
  ref: ConversationRef,
  snapshot: ConversationSnapshot,
  hash?: (text: string) => string,
): { type: 'valid'; messages: ChatMessage[] } | { type: 'invalid'; error: string } {
  if (!Array.isArray(snapshot?.messages) || snapshot.messages.length < ref.count) {
    return {
      type: 'invalid',
      error: `the turn returned ${snapshot?.messages?.length ?? 'no'} messages, ${ref.count} expected`,
    };
  }
  const messages = snapshot.messages.slice(0, ref.count);
  const digest = chainDigest('', messages, hash);
  if (digest !== ref.digest)
    return { type: 'invalid', error: 'the conversation the turn returned does not match its digest' };
  return { type: 'valid', messages };
}
