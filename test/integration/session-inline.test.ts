/**
 * Sessions of inline turns (`inlineTurns`): each turn runs inside the session's workflow. Clients address
 * a turn by its id (`<session>#turn-<n>`) as they would a child turn: state, summary, decide, result,
 * cancel, pending; the session continues as new between turns and its history replays.
 */
import { Worker } from '@temporalio/worker';
import { z } from 'zod';
import { awaitingApproval, bundle, createHarness, waitForState, type Harness } from '../support/harness';
import { recordFixture } from '../support/fixtures';
import { pollUntil } from '../support/wait';
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
const keeper = defineAgent({
  name: 'inline-keeper',
  instructions: 'inline session test',
  tools: ['rm'],
  approvals: { rm: true },
  stream: false,
});
const worker = () => h.worker({ agents: [keeper], tools: [rm] });
const rmCall = (id: string, path: string) => ({ toolCalls: [{ id, name: 'rm', arguments: { path } }] });
const opts = { agent: 'inline-keeper', inlineTurns: true };

test('a turn inside its session is read, decided and awaited by its id; no child workflow runs', async () => {
  const sessionId = h.turnId('inline');
  removed.length = 0;
  h.model.setScript([rmCall('r1', 'a'), { content: 'one' }, rmCall('r1', 'b'), { content: 'two' }]);
  await (
    await worker()
  ).runUntil(async () => {
    const { turnId: t1 } = await h.tiller.send(sessionId, 'first', opts);
    expect(t1).toBe(`${sessionId}#turn-1`);
    const waiting = await waitForState(h.tiller, t1, awaitingApproval);
    expect(waiting).toMatchObject({ turnId: t1, sessionId, pendingApprovals: [{ id: 'r1', tool: 'rm' }] });
    expect(await h.tiller.summary(t1)).toMatchObject({ turnId: t1, status: 'awaiting_approval' });
    expect((await h.tiller.sessionState(sessionId)).currentTurn).toMatchObject({
      turnId: t1,
      status: 'awaiting_approval',
      pendingApprovals: [{ id: 'r1' }],
    });
    // The inbox's way in: visibility lists the session, by the turn it runs; its tree names the turn.
    const listed = await pollUntil(
      async () => (await h.tiller.pending()).find((p) => p.sessionId === sessionId),
      'the waiting session in visibility',
    );
    expect(listed).toMatchObject({ turnId: t1, sessionId, agent: 'inline-keeper', pendingTools: ['rm'] });
    expect(await h.tiller.pendingTree(sessionId)).toMatchObject([{ turnId: t1, approval: { id: 'r1' } }]);
    await h.tiller.approve(t1, 'r1', { scope: 'session', approver: 'owner' });
    expect(await h.tiller.result(t1)).toMatchObject({ status: 'completed', output: 'one' });

    // The second turn asks again with the same call id, which the session trust grant now covers.
    const { turnId: t2 } = await h.tiller.send(sessionId, 'second', opts);
    expect(t2).toBe(`${sessionId}#turn-2`);
    expect(await h.tiller.result(t2)).toMatchObject({ status: 'completed', output: 'two' });
    expect(removed).toEqual(['a', 'b']);
    // Only the last turn's result is held; the first's summary is in the session's state.
    await expect(h.tiller.result(t1)).rejects.toThrow(/holds the result of its running or last turn only/);
    await expect(h.tiller.summary(t1)).rejects.toThrow(/has ended and its session runs/);
    const session = await h.tiller.sessionState(sessionId);
    expect(session.turns.map((t) => [t.turnId, t.status, t.output])).toEqual([
      [t1, 'completed', 'one'],
      [t2, 'completed', 'two'],
    ]);

    const history = await h.client.workflow.getHandle(sessionId).fetchHistory();
    const types = history.events!.map((e) => Object.keys(e).find((k) => k.endsWith('EventAttributes')));
    expect(types).not.toContain('startChildWorkflowExecutionInitiatedEventAttributes');
    expect(types.filter((t) => t === 'activityTaskScheduledEventAttributes')).toHaveLength(6); // 4 model calls, 2 tool calls
    await Worker.runReplayHistory({ workflowBundle: bundle() }, history, sessionId);
    await recordFixture(h.client, sessionId, 'session-inline-two-turns');
  });
});

test('a decision names its turn: one meant for an earlier turn is refused by the next', async () => {
  const sessionId = h.turnId('inline-named');
  h.model.setScript([rmCall('r1', 'x'), { content: 'one' }, rmCall('r1', 'x'), { content: 'two' }]);
  await (
    await worker()
  ).runUntil(async () => {
    const { turnId: t1 } = await h.tiller.send(sessionId, 'first', opts);
    const first = await waitForState(h.tiller, t1, awaitingApproval);
    await h.tiller.deny(t1, 'r1', { reason: 'no' });
    await h.tiller.result(t1);
    const { turnId: t2 } = await h.tiller.send(sessionId, 'second', opts);
    const second = await waitForState(h.tiller, t2, awaitingApproval);
    // The same call with the same arguments: its digest is salted per turn, as a child turn's is.
    expect(second.pendingApprovals[0]!.argsDigest).not.toBe(first.pendingApprovals[0]!.argsDigest);
    // The same call id waits again, in another turn: a late approval of the first turn's must not take it.
    const late = h.tiller.approve(t1, 'r1');
    await expect(late).rejects.toBeInstanceOf(DecisionRejectedError);
    await expect(h.tiller.approve(t1, 'r1')).rejects.toThrow(`decision for turn ${t1} refused: turn ${t2} runs here`);
    // turnResult and cancelTurn take a well-formed turn reference, and act only on their turn.
    const session = h.client.workflow.getHandle(sessionId);
    for (const bad of [{ turnId: 'x'.repeat(1001) }, { turnId: t2, extra: 1 }, 'not an object'])
      await expect(session.executeUpdate('turnResult', { args: [bad] })).rejects.toMatchObject({
        cause: { message: expect.stringMatching(/^malformed turnResult/) },
      });
    await expect(h.tiller.result(`${sessionId}#turn-9`)).rejects.toThrow(
      /holds the result of its running or last turn/,
    );
    await session.signal('cancelTurn', { turnId: t1 });
    await session.signal('cancelTurn', 'nonsense');
    expect((await h.tiller.summary(t2)).status).toBe('awaiting_approval');
    // Through the session's own id (what visibility lists), the running turn is decided.
    await h.tiller.approve(sessionId, 'r1');
    expect(await h.tiller.result(t2)).toMatchObject({ status: 'completed', output: 'two' });
  });
});

test('cancelling an inline turn ends the turn, not its session; a continue-as-new keeps the last result', async () => {
  const sessionId = h.turnId('inline-cancel');
  h.model.setScript([rmCall('c1', 'z'), { content: 'after' }]);
  await (
    await worker()
  ).runUntil(async () => {
    const perRun = { ...opts, maxTurnsPerRun: 1 };
    const { turnId: t1 } = await h.tiller.send(sessionId, 'first', perRun);
    await waitForState(h.tiller, t1, awaitingApproval);
    await h.tiller.cancel(t1);
    expect(await h.tiller.result(t1)).toMatchObject({ status: 'cancelled' });
    // The session went on (and continued as new after its turn): the next turn runs in it.
    const { turnId: t2 } = await h.tiller.send(sessionId, 'second', perRun);
    expect(t2).toBe(`${sessionId}#turn-2`);
    expect(await h.tiller.result(t2)).toMatchObject({ status: 'completed', output: 'after' });
    const state = await h.tiller.sessionState(sessionId);
    expect(state.runs).toBeGreaterThanOrEqual(1);
    expect(state.turns.map((t) => [t.turnId, t.status])).toEqual([
      [t1, 'cancelled'],
      [t2, 'completed'],
    ]);
    // The conversation kept only the completed turn.
    expect(state.conversationLength).toBe(2);
    // The first run: the cancelled turn and the continue-as-new after it.
    const { raw } = await h.client.workflow.getHandle(sessionId).describe();
    const firstRun = raw.workflowExecutionInfo?.firstRunId ?? undefined;
    expect(firstRun).toBeTruthy();
    await recordFixture(h.client, sessionId, 'session-inline-cancelled', firstRun);
  });
});
