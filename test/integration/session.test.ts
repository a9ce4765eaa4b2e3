/** Sessions: turns as child workflows, conversation and session trust carried, continue-as-new that keeps everything. */
import { z } from 'zod';
import { createHarness, waitForState, awaitingApproval, type Harness } from '../support/harness';
import { recordFixture } from '../support/fixtures';
import { defineAgent } from '../../src/agents/define';
import { defineTool } from '../../src/tools/define';
import { DecisionRejectedError } from '../../src/client';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

const removed: string[] = [];
const rm = defineTool({
  name: 'rm',
  description: 'remove',
  input: z.object({ path: z.string() }),
  execute: ({ path }) => {
    removed.push(path);
    return `removed ${path}`;
  },
});
const nuke = defineTool({ name: 'nuke', description: 'x', input: z.object({}), execute: () => 'boom' });
const keeper = defineAgent({
  name: 'keeper',
  instructions: 'session test',
  tools: ['rm', 'nuke'],
  approvals: { rm: true, nuke: { neverTrust: true } },
  stream: false,
});
const worker = () => h.worker({ agents: [keeper], tools: [rm, nuke] });
const usage = (n: number) => ({ prompt_tokens: n, completion_tokens: 1 });
const rmCall = (id: string, path: string, n: number) => ({
  toolCalls: [{ id, name: 'rm', arguments: { path } }],
  usage: usage(n),
});

test('a session continues as new several times and keeps conversation, trust and usage', async () => {
  const sessionId = h.turnId('session');
  h.model.setScript([
    rmCall('r1', 'a', 10),
    { content: 'one', usage: usage(11) },
    rmCall('r2', 'b', 12),
    { content: 'two', usage: usage(13) },
    { content: 'three', usage: usage(14) },
    rmCall('r4', 'd', 15),
    { content: 'four', usage: usage(16) },
    rmCall('r5', 'e', 17),
    { content: 'five', usage: usage(18) },
  ]);
  await (
    await worker()
  ).runUntil(async () => {
    const opts = { agent: 'keeper', maxTurnsPerRun: 2 };
    const { turnId: t1 } = await h.tiller.send(sessionId, 'first', opts);
    expect(t1).toBe(`${sessionId}-turn-1`);
    await waitForState(h.tiller, t1, awaitingApproval);
    const waiting = await h.tiller.sessionState(sessionId);
    expect(waiting).toMatchObject({ status: 'running', currentTurn: { turnId: t1, status: 'awaiting_approval' } });
    expect(waiting.currentTurn?.pendingApprovals.map((p) => p.id)).toEqual(['r1']);
    await expect(h.tiller.send(sessionId, 'too early', opts)).rejects.toThrow(
      new RegExp(`is still running turn ${t1}`),
    );
    await h.tiller.approve(t1, 'r1', { scope: 'session', approver: 'owner' });
    expect((await h.tiller.result(t1)).output).toBe('one');

    const { turnId: t2 } = await h.tiller.send(sessionId, 'second', opts);
    expect((await h.tiller.result(t2)).output).toBe('two');
    const firstRun = (await h.client.workflow.getHandle(sessionId).describe()).runId;
    const { turnId: t3 } = await h.tiller.send(sessionId, 'third', opts);
    expect((await h.tiller.result(t3)).output).toBe('three');
    const { turnId: t4 } = await h.tiller.send(sessionId, 'fourth', opts);
    expect((await h.tiller.result(t4)).output).toBe('four');

    await expect(h.tiller.revokeTrust(sessionId, 'nuke')).rejects.toThrow(/no trust grant for nuke in session/);
    expect(await h.tiller.revokeTrust(sessionId, 'rm')).toEqual([]);

    const { turnId: t5 } = await h.tiller.send(sessionId, 'fifth', opts);
    await waitForState(h.tiller, t5, awaitingApproval);
    await h.tiller.deny(t5, 'r5', { reason: 'trust was revoked' });
    expect((await h.tiller.result(t5)).output).toBe('five');

    // The turn's result is visible to clients before the session has processed the turn's end.
    const deadline = Date.now() + 10_000;
    let session = await h.tiller.sessionState(sessionId);
    while (session.currentTurn && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      session = await h.tiller.sessionState(sessionId);
    }
    expect(session.status).toBe('idle');
    expect(session.runs).toBeGreaterThanOrEqual(2);
    expect(session.turns.map((t) => [t.turnId, t.status, t.output])).toEqual([
      [t1, 'completed', 'one'],
      [t2, 'completed', 'two'],
      [t3, 'completed', 'three'],
      [t4, 'completed', 'four'],
      [t5, 'completed', 'five'],
    ]);
    expect(session.usage).toEqual({
      inputTokens: 10 + 11 + 12 + 13 + 14 + 15 + 16 + 17 + 18,
      outputTokens: 9,
      totalTokens: 126 + 9,
      modelCalls: 9,
    });
    expect(session.conversationLength).toBe(10);
    expect(session.trust).toEqual([]);
    const old = await h.client.workflow.getHandle(sessionId, firstRun).describe();
    expect(old.status.name).toBe('CONTINUED_AS_NEW');
    await recordFixture(h.client, t1, 'session-turn-approved-for-session');
    await recordFixture(h.client, sessionId, 'session-after-continue-as-new');
  });
  // r2 and r4 ran on session trust (no approval asked); r5 asked again after the revoke and was denied.
  expect(removed).toEqual(['a', 'b', 'd']);
  expect(h.model.requests).toHaveLength(9);
  // The fifth turn's first model call saw the whole conversation so far, in order.
  const fifth = h.model.requests[7]!.body.messages.filter((m: any) => m.role !== 'system');
  expect(fifth.map((m: any) => `${m.role}:${m.content}`)).toEqual([
    'user:first',
    'assistant:one',
    'user:second',
    'assistant:two',
    'user:third',
    'assistant:three',
    'user:fourth',
    'assistant:four',
    'user:fifth',
  ]);
});

test('never-trustable tools cannot be trusted for the session', async () => {
  const sessionId = h.turnId('never');
  h.model.setScript([{ toolCalls: [{ id: 'n1', name: 'nuke', arguments: {} }] }, { content: 'ok' }]);
  await (
    await worker()
  ).runUntil(async () => {
    const { turnId } = await h.tiller.send(sessionId, 'nuke it', { agent: 'keeper' });
    await waitForState(h.tiller, turnId, awaitingApproval);
    await expect(h.tiller.approve(turnId, 'n1', { scope: 'session' })).rejects.toBeInstanceOf(DecisionRejectedError);
    await expect(h.tiller.approve(turnId, 'n1', { scope: 'session' })).rejects.toThrow(/can never be trusted/);
    await h.tiller.approve(turnId, 'n1');
    await h.tiller.result(turnId);
    expect((await h.tiller.sessionState(sessionId)).trust).toEqual([]);
  });
});
