/**
 * The model activity's copy of a turn's conversation (src/activities/conversation-cache.ts): it saves
 * the `conversation` query when it can rebuild what the turn recorded, reads only new messages when it
 * cannot, and never prompts the model with anything the recorded digest does not vouch for.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import type OpenAI from 'openai';
import { ConversationCache } from '../../src/activities/conversation-cache';
import { createModelActivities } from '../../src/activities/model';
import { chainDigest } from '../../src/core/conversation';
import type { AssistantMessage, ChatMessage, ConversationRequest, ModelRequest } from '../../src/core/spec';

/** A turn as the model activity sees it: its messages, and the queries it answered. */
class FakeTurn {
  readonly messages: ChatMessage[] = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'go' },
  ];
  readonly queries: ConversationRequest[] = [];
  /** Code from before `from` existed: always answers from the first message. */
  legacy = false;
  readonly client = {
    withAbortSignal: <R>(_signal: AbortSignal, fn: () => Promise<R>) => fn(),
    workflow: {
      getHandle: () => ({
        query: async (_def: unknown, req: ConversationRequest) => {
          this.queries.push(req);
          const from = this.legacy ? 0 : (req.from ?? 0);
          return {
            messages: this.messages.slice(from, req.count),
            ...(!this.legacy && req.from !== undefined && { from }),
            ...(this.legacy || req.tools !== false ? { tools: [] } : {}),
          };
        },
      }),
    },
  };

  request(call: number): ModelRequest {
    const ref = { count: this.messages.length, digest: chainDigest('', this.messages) };
    return { model: 'm', stream: false, turnId: 'w', call, conversation: ref };
  }
}

/** A model that asks for one tool per call and records the prompts it got. */
function fakeModel(prompts: ChatMessage[][]): OpenAI {
  let n = 0;
  return {
    chat: {
      completions: {
        create: async (params: { messages: ChatMessage[] }) => {
          prompts.push(params.messages);
          n++;
          return {
            choices: [
              {
                finish_reason: 'tool_calls',
                message: {
                  role: 'assistant',
                  content: `step ${n}`,
                  tool_calls: [{ id: `c${n}`, type: 'function', function: { name: 'look', arguments: '{}' } }],
                },
              },
            ],
          };
        },
      },
    },
  } as unknown as OpenAI;
}

function setup() {
  const turn = new FakeTurn();
  const prompts: ChatMessage[][] = [];
  const conversations = new ConversationCache();
  const { callModel } = createModelActivities({ client: fakeModel(prompts), conversations });
  const env = new MockActivityEnvironment(
    { workflowExecution: { workflowId: 'w', runId: 'r' } },
    { client: turn.client as never },
  );
  const key = 'w/r';
  /** One model call; the turn appends its answer and, unless `ranHere` is false, this worker saw the result. */
  const step = async (call: number, result: string, ranHere = true) => {
    const response = (await env.run(callModel, turn.request(call))) as { message: AssistantMessage };
    const answer = response.message as AssistantMessage;
    turn.messages.push(answer);
    const id = answer.tool_calls![0]!.id;
    if (ranHere) conversations.toolResult(key, id, result);
    turn.messages.push({ role: 'tool', tool_call_id: id, content: result });
  };
  return { turn, prompts, conversations, step, env, callModel, key };
}

test('after the first call, a call whose tool ran in this worker needs no query', async () => {
  const { turn, prompts, step } = setup();
  await step(1, 'one');
  await step(2, 'two');
  await step(3, 'three');
  expect(turn.queries).toEqual([{ count: 2 }]);
  expect(prompts.map((p) => p.length)).toEqual([2, 4, 6]);
  expect(prompts[2]).toEqual(turn.messages.slice(0, 6));
});

test('a result this worker did not see is read from the turn: only the new messages', async () => {
  const { turn, prompts, step } = setup();
  await step(1, 'one');
  await step(2, 'ran elsewhere', false);
  await step(3, 'three');
  expect(turn.queries).toEqual([{ count: 2 }, { count: 6, from: 4, tools: false }]);
  expect(prompts[2]).toEqual(turn.messages.slice(0, 6));
});

test('a copy that does not match the recorded conversation is never used', async () => {
  const { turn, prompts, conversations, step, key } = setup();
  await step(1, 'one');
  // This worker saw a result, but the turn recorded another one (e.g. a later attempt's).
  conversations.toolResult(key, 'c1', 'stale');
  await step(2, 'two');
  expect(turn.queries).toEqual([{ count: 2 }, { count: 4, from: 2, tools: false }]);
  expect(prompts[1]![3]).toEqual({ role: 'tool', tool_call_id: 'c1', content: 'one' });
});

test('a turn on code from before `from` answers with everything, which is checked whole', async () => {
  const { turn, prompts, step } = setup();
  turn.legacy = true;
  await step(1, 'one');
  await step(2, 'elsewhere', false);
  await step(3, 'three');
  expect(turn.queries).toEqual([{ count: 2 }, { count: 6, from: 4, tools: false }]);
  expect(prompts[2]).toEqual(turn.messages.slice(0, 6));
});

test('a turn that answers with something else fails the call', async () => {
  const { turn, env, callModel } = setup();
  const req = turn.request(1);
  turn.messages[1] = { role: 'user', content: 'not what was recorded' };
  await expect(env.run(callModel, req)).rejects.toThrow(/does not match its digest/);
});

test('the cache holds at most its bound of characters, least recently used turns first', () => {
  const cache = new ConversationCache(100);
  const entry = (chars: number) => ({ messages: [], digest: '', tools: [], chars });
  cache.set('a', entry(40));
  cache.set('b', entry(40));
  cache.get('a');
  cache.set('c', entry(40));
  expect([cache.get('a'), cache.get('b'), cache.get('c')].map((e) => e !== undefined)).toEqual([true, false, true]);
  cache.set('huge', entry(101));
  expect(cache.get('huge')).toBeUndefined();
  expect(cache.size).toBe(2);
});
