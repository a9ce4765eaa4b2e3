import { createHash } from 'node:crypto';
import { chainDigest, ConversationDigest, resolveConversation } from '../../src/core/conversation';
import type { ChatMessage } from '../../src/core/spec';

const node = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const msgs: ChatMessage[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Read notes.txt — ünïcødé 🚀' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"notes.txt"}' } }],
  },
  { role: 'tool', tool_call_id: 'c1', content: 'hello' },
];

describe('conversation by reference', () => {
  it('the workflow’s incremental chain equals a chain over the whole list, in pure JS and node:crypto alike', () => {
    const list: ChatMessage[] = msgs.slice(0, 2);
    const d = new ConversationDigest(list);
    const first = d.ref();
    list.push(...msgs.slice(2));
    const second = d.ref();
    expect(first).toEqual({ count: 2, digest: chainDigest('', msgs.slice(0, 2)) });
    expect(second).toEqual({ count: 4, digest: chainDigest('', msgs) });
    expect(chainDigest('', msgs, node)).toBe(second.digest);
  });

  it('resolves the prefix the call saw, even after the conversation grew', () => {
    const ref = { count: 2, digest: chainDigest('', msgs.slice(0, 2)) };
    expect(resolveConversation(ref, { messages: msgs, tools: [] }, node)).toEqual({
      type: 'valid',
      messages: msgs.slice(0, 2),
    });
  });

  it('refuses an answer that is not the conversation the call recorded', () => {
    const ref = { count: 4, digest: chainDigest('', msgs) };
    const tampered = msgs.map((m, i) => (i === 3 ? { ...m, content: 'HELLO' } : m));
    expect(resolveConversation(ref, { messages: tampered, tools: [] })).toEqual({
      type: 'invalid',
      error: 'the conversation the turn returned does not match its digest',
    });
    expect(resolveConversation(ref, { messages: msgs.slice(0, 3), tools: [] })).toMatchObject({ type: 'invalid' });
    expect(resolveConversation(ref, {} as never)).toMatchObject({ type: 'invalid' });
  });
});
