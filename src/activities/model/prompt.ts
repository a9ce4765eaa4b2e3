/**
 * The request's conversation in hand: inline (older histories), or by reference — from this worker's
 * copy when it matches the recorded digest (../conversation-cache.ts), else read from the turn with the
 * `conversation` query (only the messages after the copy, or all of them) and checked against the
 * digest. A mismatch fails the attempt (retried).
 */
import { createHash } from 'node:crypto';
import { ApplicationFailure, type Context } from '@temporalio/activity';
import { conversationQuery } from '../../core/contract';
import { resolveConversation } from '../../core/conversation';
import { FailureType } from '../../core/failures';
import type { ChatMessage, ConversationSnapshot, ModelRequest, ToolSpec } from '../../core/spec';
import { type ConversationCache, expectedNext, extendChain } from '../conversation-cache';

/** A model request with its conversation in hand. */
export type Prompt = ModelRequest & { messages: ChatMessage[]; tools: ToolSpec[] };

const nodeSha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Where a turn run's conversation is cached (../conversation-cache.ts). */
export function conversationKey(ctx: Context): string | undefined {
  const turn = ctx.info.workflowExecution;
  return turn && `${turn.workflowId}/${turn.runId}`;
}

export async function promptOf(req: ModelRequest, ctx: Context, cache: ConversationCache): Promise<Prompt> {
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
