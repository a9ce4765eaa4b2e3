/**
 * Tools as local activities (`defineTool({ local: true })`): the call runs in the turn's worker and is
 * recorded as a marker, not as three activity events; results, failures and the idempotency key
 * behave as for regular tools, and approvals still gate them.
 */
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { defineTool } from '../../src/tools/define';
import { awaitingApproval, createHarness, waitForState, type Harness } from '../support/harness';

const keys: string[] = [];
const quick = defineTool({
  name: 'quick',
  description: 'adds one',
  input: z.object({ n: z.number() }),
  local: true,
  execute: ({ n }, ctx) => {
    keys.push(ctx.idempotencyKey);
    ctx.heartbeat({ n }); // harmless in a local activity
    return `${n + 1}`;
  },
});
const broken = defineTool({
  name: 'broken',
  description: 'throws',
  input: z.object({}),
  local: true,
  execute: () => {
    throw new Error('disk on fire');
  },
});
const agents = [
  defineAgent({ name: 'local', instructions: 'x', tools: ['quick', 'broken'] }),
  defineAgent({ name: 'gated_local', instructions: 'x', tools: ['quick'], approvals: { quick: true } }),
];

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const eventTypes = async (turnId: string) =>
  ((await h.client.workflow.getHandle(turnId).fetchHistory()).events ?? []).map((e) => ({
    type: e.eventType,
    activity: e.activityTaskScheduledEventAttributes?.activityType?.name,
    marker: e.markerRecordedEventAttributes?.markerName,
  }));

test('a local tool runs, returns to the model, and is recorded as a marker', async () => {
  h.model.setScript([
    { toolCalls: [{ id: 'q1', name: 'quick', arguments: { n: 41 } }] },
    { toolCalls: [{ id: 'b1', name: 'broken', arguments: {} }] },
    { content: 'done' },
  ]);
  const turnId = h.turnId('local');
  await (
    await h.worker({ agents, tools: [quick, broken] })
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'local', input: 'go', turnId });
    const result = await h.tiller.result(turnId);
    expect(result.status).toBe('completed');
    expect(result.toolCalls.map((c) => [c.name, c.status, c.result ?? c.error])).toEqual([
      ['quick', 'succeeded', '42'],
      ['broken', 'failed', expect.stringContaining('disk on fire')],
    ]);
  });
  expect(h.model.requests[1]!.body.messages.at(-1)).toMatchObject({ role: 'tool', content: '42' });
  expect(keys).toEqual([`${turnId}:q1`]);
  const events = await eventTypes(turnId);
  expect(events.filter((e) => e.activity === 'runTool')).toHaveLength(0);
  // The two tools, and the lean run's `startTurn`.
  expect(events.filter((e) => e.marker === 'core_local_activity')).toHaveLength(3);
});

test('an approval gate still pauses a local tool until a human decides', async () => {
  keys.length = 0;
  h.model.setScript([{ toolCalls: [{ id: 'g1', name: 'quick', arguments: { n: 1 } }] }, { content: 'ok' }]);
  const turnId = h.turnId('gated-local');
  await (
    await h.worker({ agents, tools: [quick, broken] })
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'gated_local', input: 'go', turnId });
    await waitForState(h.tiller, turnId, awaitingApproval);
    expect(keys).toEqual([]);
    await h.tiller.approve(turnId, 'g1');
    expect((await h.tiller.result(turnId)).toolCalls[0]).toMatchObject({ status: 'succeeded', result: '2' });
  });
  expect(keys).toEqual([`${turnId}:g1`]);
});
