/**
 * The conversation passed by reference: model calls record `{count, digest}`, not the transcript, so
 * history grows linearly; the model still receives the whole conversation (the activity reads it
 * with the `conversation` query), also from a worker that caches nothing.
 */
import { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { defineTool } from '../../src/tools/define';
import { recordFixture } from '../support/fixtures';
import { createHarness, type Harness } from '../support/harness';

const echo = defineTool({
  name: 'echo',
  description: 'echo',
  input: z.object({ n: z.number() }),
  execute: ({ n }) => `result ${n} `.repeat(50),
});
const looper = defineAgent({ name: 'looper', instructions: 'Loop.', tools: ['echo'], maxModelCalls: 50 });

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const steps = (n: number) => [
  ...Array.from({ length: n }, (_, i) => ({ toolCalls: [{ id: `e${i}`, name: 'echo', arguments: { n: i } }] })),
  { content: 'done' },
];

/** Encoded sizes of every callModel ActivityTaskScheduled input, in order. */
async function modelInputs(turnId: string) {
  const history = await h.client.workflow.getHandle(turnId).fetchHistory();
  const scheduled = history.events!.flatMap((e) => {
    const a = e.activityTaskScheduledEventAttributes;
    return a?.activityType?.name === 'callModel' ? [a] : [];
  });
  const bytes = (history.events ?? []).reduce(
    (sum, e) => sum + temporal.api.history.v1.HistoryEvent.encode(e).finish().length,
    0,
  );
  return {
    bytes,
    inputs: scheduled.map((a) => JSON.parse(Buffer.from(a.input!.payloads![0]!.data!).toString())),
    sizes: scheduled.map((a) => a.input!.payloads![0]!.data!.length),
  };
}

async function run(label: string, n: number, worker: Parameters<Harness['worker']>[0] = {}) {
  h.model.setScript(steps(n));
  h.model.requests.length = 0;
  const turnId = h.turnId(label);
  await (
    await h.worker({ agents: [looper], tools: [echo], ...worker })
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'looper', input: 'go', turnId });
    expect(await h.tiller.result(turnId)).toMatchObject({ status: 'completed', output: 'done' });
  });
  return { turnId, ...(await modelInputs(turnId)), requests: [...h.model.requests] };
}

test('each model call records a reference, and the model still gets the whole conversation', async () => {
  const r = await run('by-ref', 8);
  await recordFixture(h.client, r.turnId, 'conversation-by-reference');
  expect(r.inputs).toHaveLength(9);
  for (const [i, input] of r.inputs.entries()) {
    expect(input.messages).toBeUndefined();
    expect(input.tools).toBeUndefined();
    // system + user, then an assistant message and a tool result per step
    expect(input.conversation).toMatchObject({ count: 2 + 2 * i, digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
  }
  // The model saw the full, growing transcript, tools included, every time.
  expect(r.requests.map((q) => q.body.messages.length)).toEqual(r.inputs.map((x) => x.conversation.count));
  expect(r.requests.at(-1)!.body.messages.at(-1)).toMatchObject({
    role: 'tool',
    content: expect.stringContaining('result 7'),
  });
  expect(r.requests.every((q) => q.body.tools?.[0]?.function?.name === 'echo')).toBe(true);
  // A reference costs the same at step 1 and step 9.
  expect(Math.max(...r.sizes) - Math.min(...r.sizes)).toBeLessThanOrEqual(4);
});

test('history grows linearly: 16 steps cost about twice 8 steps, not four times', async () => {
  const short = await run('linear-8', 8);
  const long = await run('linear-16', 16);
  const perStepShort = short.bytes / 8;
  const perStepLong = long.bytes / 16;
  // With the transcript recorded per call, per-step bytes would grow ~linearly with the step count.
  expect(perStepLong / perStepShort).toBeLessThan(1.15);
});

test('a worker that caches nothing still answers the query (by replay) and completes the turn', async () => {
  const r = await run('evicted', 4, { worker: { maxCachedWorkflows: 0 } });
  expect(r.requests.map((q) => q.body.messages.length)).toEqual([2, 4, 6, 8, 10]);
});
