/**
 * The cheap reads on a real turn: `summary` (status, pending approvals, usage, counts) and `events`
 * pages, both much smaller than `state`; for a turn on code without those queries (the 0.1.0 bundle)
 * the client answers them from `state`.
 */
import path from 'node:path';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { summaryQuery } from '../../src/core/contract';
import { defineTool } from '../../src/tools/define';
import { awaitingApproval, createHarness, waitForState, type Harness } from '../support/harness';

const V010 = { codePath: path.resolve(__dirname, '../fixtures/bundles/workflows-v0.1.0.js') };

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const echo = defineTool({
  name: 'echo',
  description: 'echoes',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});
const gated = defineAgent({ name: 'gated_reader', instructions: 'x', tools: ['echo'], approvals: { echo: true } });
const options = { agents: [gated], tools: [echo] };

function script(steps: number) {
  return [
    ...Array.from({ length: steps }, (_, i) => ({
      toolCalls: [{ id: `e${i}`, name: 'echo', arguments: { text: 'x'.repeat(2_000) } }],
    })),
    { toolCalls: [{ id: 'gate', name: 'echo', arguments: { text: 'last' } }] },
    { content: 'done' },
  ];
}

test('summary and pages of events on a paused turn: the same facts as `state`, a fraction of its size', async () => {
  h.model.setScript(script(6));
  const turnId = h.turnId('reads');
  await h.withWorker(async () => {
    // Every echo waits for a human: six approved, the seventh left waiting.
    await h.tiller.startTurn({ agent: 'gated_reader', input: 'go', turnId });
    for (let i = 0; i < 6; i++) {
      await waitForState(h.tiller, turnId, (s) => s.pendingApprovals.some((p) => p.id === `e${i}`));
      await h.tiller.approve(turnId, `e${i}`);
    }
    const state = await waitForState(h.tiller, turnId, (s) => s.pendingApprovals.some((p) => p.id === 'gate'));
    const summary = await h.tiller.summary(turnId);
    expect(summary).toMatchObject({
      turnId,
      agent: 'gated_reader',
      status: 'awaiting_approval',
      pendingApprovals: state.pendingApprovals,
      usage: state.usage,
      lastSeq: state.eventCount,
      counts: {
        events: state.eventCount,
        toolCalls: 7,
        toolCallsByStatus: { succeeded: 6, awaiting_approval: 1 },
        subAgents: 0,
      },
      openChildren: [],
    });
    expect(JSON.stringify(summary).length * 10).toBeLessThan(JSON.stringify(state).length);

    // Pages of 10 after a seq, until `more` is false: exactly the state's events.
    const events = [];
    let page = await h.tiller.events(turnId, { afterSeq: 0, limit: 10 });
    events.push(...page.events);
    while (page.more) {
      page = await h.tiller.events(turnId, { afterSeq: events.at(-1)!.seq, limit: 10 });
      events.push(...page.events);
    }
    expect(events).toEqual(state.events);
    expect(page).toMatchObject({ status: 'awaiting_approval', lastSeq: state.eventCount, oldestSeq: 1 });
    // A follower that has seen everything gets an empty page.
    expect(await h.tiller.events(turnId, { afterSeq: state.eventCount })).toMatchObject({ events: [], more: false });

    // `state` is kept as a payload until the next event: asked again, the same answer; after the
    // approval (new events), the new one.
    expect(await h.tiller.state(turnId)).toEqual(state);
    await h.tiller.approve(turnId, 'gate');
    expect((await h.tiller.result(turnId)).status).toBe('completed');
    const after = await h.tiller.state(turnId);
    expect(after.status).toBe('completed');
    expect(after.eventCount).toBeGreaterThan(state.eventCount);
    expect(after.events.at(-1)).toMatchObject({ type: 'TURN_COMPLETED', seq: after.eventCount });
  }, options);
});

test('a turn on code without the queries is read from its `state`', async () => {
  h.model.setScript([{ toolCalls: [{ id: 'old', name: 'echo', arguments: { text: 'hi' } }] }, { content: 'done' }]);
  const turnId = h.turnId('reads-old');
  await h.withWorker(
    async () => {
      await h.tiller.startTurn({ agent: 'gated_reader', input: 'go', turnId });
      const state = await waitForState(h.tiller, turnId, awaitingApproval);
      await expect(h.tiller.handle(turnId).query(summaryQuery)).rejects.toThrow(/summary/);
      expect(await h.tiller.summary(turnId)).toMatchObject({
        status: 'awaiting_approval',
        pendingApprovals: state.pendingApprovals,
        lastSeq: state.eventCount,
      });
      expect((await h.tiller.events(turnId, { afterSeq: 1 })).events).toEqual(state.events.slice(1));
      await h.tiller.approve(turnId, 'old');
      expect((await h.tiller.result(turnId)).status).toBe('completed');
    },
    { ...options, workflowBundle: V010 },
  );
});
