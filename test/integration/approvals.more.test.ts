/** Denials, trust, timeouts and the `decide` update/signal contract, on the real dev server. */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { recordFixture } from '../support/fixtures';
import { createHarness, waitForState, awaitingApproval, type Harness } from '../support/harness';
import { DecisionRejectedError } from '../../src/client';
import { defineAgent } from '../../src/agents/define';
import { defineTool } from '../../src/tools/define';
import { DENIED_WITHOUT_REASON } from '../../src/core/policy';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

const toolMessage = (body: any, id: string) =>
  body.messages.find((m: any) => m.role === 'tool' && m.tool_call_id === id)?.content;

const ran: string[] = [];
const touch = defineTool({
  name: 'touch',
  description: 'records that it ran',
  input: z.object({ n: z.number() }),
  execute: ({ n }) => {
    ran.push(`touch:${n}`);
    return `touched ${n}`;
  },
});
const look = defineTool({
  name: 'look',
  description: 'harmless',
  input: z.object({}),
  execute: () => {
    ran.push('look');
    return 'looked';
  },
});
const gated = defineAgent({
  name: 'gated',
  instructions: 'test agent',
  tools: ['touch', 'look'],
  approvals: { touch: true },
});
const shortWait = defineAgent({
  name: 'short-wait',
  instructions: 'test agent',
  tools: ['touch'],
  approvals: { touch: { timeout: '1 second' } },
});
const worker = () => h.worker({ agents: [gated, shortWait], tools: [touch, look] });

beforeEach(() => {
  ran.length = 0;
  h.model.requests.length = 0;
});

async function startPaused(agent: string, label: string) {
  const turnId = h.turnId(label);
  await h.tiller.startTurn({ agent, input: label, turnId });
  const state = await waitForState(h.tiller, turnId, awaitingApproval);
  return { turnId, state };
}

test('deny without a reason: the tool never runs and the model sees the literal denial text', async () => {
  fs.writeFileSync(path.join(h.workspace, 'keep.txt'), 'keep me');
  h.model.setScript([
    { toolCalls: [{ id: 'd1', name: 'delete_file', arguments: { path: 'keep.txt' } }] },
    { content: 'ok, not deleted' },
  ]);
  const w = await h.worker();
  const state = await w.runUntil(async () => {
    const { turnId } = await startPaused('assistant', 'deny-no-reason');
    const recorded = await h.tiller.deny(turnId, 'd1', { approver: 'carol' });
    expect(recorded).toMatchObject({ approved: false, approver: 'carol' });
    expect((await h.tiller.result(turnId)).status).toBe('completed');
    return h.tiller.state(turnId);
  });
  expect(fs.readFileSync(path.join(h.workspace, 'keep.txt'), 'utf8')).toBe('keep me');
  expect(toolMessage(h.model.requests[1]!.body, 'd1')).toBe(DENIED_WITHOUT_REASON);
  expect(DENIED_WITHOUT_REASON).toBe('Tool call denied by user.');
  expect(state.toolCalls).toEqual([
    expect.objectContaining({ id: 'd1', status: 'denied', result: 'Tool call denied by user.' }),
  ]);
  const types = state.events.map((e) => e.type);
  expect(types).toContain('TOOL_DENIED');
  expect(types).not.toContain('TOOL_STARTED');
});

test('deny with a reason: the reason itself is the tool result', async () => {
  h.model.setScript([{ toolCalls: [{ id: 't1', name: 'touch', arguments: { n: 1 } }] }, { content: 'understood' }]);
  await (
    await worker()
  ).runUntil(async () => {
    const { turnId } = await startPaused('gated', 'deny-reason');
    await h.tiller.deny(turnId, 't1', { reason: 'not on a Friday' });
    await h.tiller.result(turnId);
    await recordFixture(h.client, turnId, 'deny-with-reason');
  });
  expect(ran).toEqual([]);
  expect(toolMessage(h.model.requests[1]!.body, 't1')).toBe('not on a Friday');
});

test('parallel calls: the ungated one runs while the gated one waits; results return in model order', async () => {
  h.model.setScript([
    {
      toolCalls: [
        { id: 'p1', name: 'touch', arguments: { n: 7 } },
        { id: 'p2', name: 'look', arguments: {} },
      ],
    },
    { content: 'both done' },
  ]);
  await (
    await worker()
  ).runUntil(async () => {
    const { turnId } = await startPaused('gated', 'parallel');
    const waiting = await waitForState(h.tiller, turnId, (s) =>
      s.toolCalls.some((c) => c.id === 'p2' && c.status === 'succeeded'),
    );
    expect(waiting.status).toBe('awaiting_approval');
    expect(ran).toEqual(['look']);
    await h.tiller.approve(turnId, 'p1');
    await h.tiller.result(turnId);
    await recordFixture(h.client, turnId, 'parallel-gated-and-free');
  });
  expect(ran).toEqual(['look', 'touch:7']);
  const toolMsgs = h.model.requests[1]!.body.messages.filter((m: any) => m.role === 'tool');
  expect(toolMsgs.map((m: any) => [m.tool_call_id, m.content])).toEqual([
    ['p1', 'touched 7'],
    ['p2', 'looked'],
  ]);
});

test('scope "turn": one approval trusts the tool for the rest of the turn', async () => {
  h.model.setScript([
    { toolCalls: [{ id: 's1', name: 'touch', arguments: { n: 1 } }] },
    { toolCalls: [{ id: 's2', name: 'touch', arguments: { n: 2 } }] },
    { toolCalls: [{ id: 's3', name: 'touch', arguments: { n: 3 } }] },
    { content: 'three touches' },
  ]);
  const state = await (
    await worker()
  ).runUntil(async () => {
    const { turnId } = await startPaused('gated', 'trust-turn');
    await h.tiller.approve(turnId, 's1', { scope: 'turn', approver: 'dana' });
    const result = await h.tiller.result(turnId);
    expect(result.trust).toEqual([expect.objectContaining({ tool: 'touch', scope: 'turn', approver: 'dana' })]);
    await recordFixture(h.client, turnId, 'trust-turn');
    return h.tiller.state(turnId);
  });
  expect(ran).toEqual(['touch:1', 'touch:2', 'touch:3']);
  expect(state.events.filter((e) => e.type === 'APPROVAL_REQUESTED')).toHaveLength(1);
  expect(state.toolCalls.map((c) => c.decision?.via)).toEqual(['update', 'trust', 'trust']);
  expect(state.trust).toEqual([expect.objectContaining({ tool: 'touch', scope: 'turn' })]);
});

test('approval timeout: the call ends timed_out (not denied) and the model is told it expired', async () => {
  h.model.setScript([{ toolCalls: [{ id: 'x1', name: 'touch', arguments: { n: 9 } }] }, { content: 'it expired' }]);
  const state = await (
    await worker()
  ).runUntil(async () => {
    const { turnId, state: paused } = await startPaused('short-wait', 'timeout');
    expect(paused.pendingApprovals[0]?.expiresAt).toEqual(expect.any(String));
    await h.tiller.result(turnId);
    await recordFixture(h.client, turnId, 'approval-timeout');
    return h.tiller.state(turnId);
  });
  expect(ran).toEqual([]);
  expect(state.toolCalls[0]).toMatchObject({ id: 'x1', status: 'timed_out' });
  expect(state.events.map((e) => e.type)).toContain('APPROVAL_TIMED_OUT');
  expect(state.events.map((e) => e.type)).not.toContain('TOOL_DENIED');
  expect(toolMessage(h.model.requests[1]!.body, 'x1')).toMatch(/expired after 1 second without a decision/);
});

test('the decide update rejects unknown ids, malformed payloads and a second decision; nothing is recorded', async () => {
  h.model.setScript([{ toolCalls: [{ id: 'u1', name: 'touch', arguments: { n: 1 } }] }, { content: 'fine' }]);
  await (
    await worker()
  ).runUntil(async () => {
    const { turnId, state: before } = await startPaused('gated', 'update-validator');
    await expect(h.tiller.decide(turnId, { id: 'nope', approved: true })).rejects.toThrow(
      /unknown tool call id nope; pending: u1/,
    );
    await expect(h.tiller.decide(turnId, { id: 'u1', approved: 'yes' } as any)).rejects.toThrow(
      /malformed decision: approved/,
    );
    await expect(h.tiller.decide(turnId, { id: 'u1', approved: true, scope: 'forever' } as any)).rejects.toBeInstanceOf(
      DecisionRejectedError,
    );
    const after = await h.tiller.state(turnId);
    expect(after.eventCount).toBe(before.eventCount);
    expect(after.pendingApprovals).toEqual(before.pendingApprovals);

    await h.tiller.approve(turnId, 'u1', { approver: 'first' });
    await expect(h.tiller.deny(turnId, 'u1', { approver: 'second' })).rejects.toThrow(/not pending|already decided/);
    await h.tiller.result(turnId);
    const final = await h.tiller.state(turnId);
    expect(final.toolCalls[0]?.decision).toMatchObject({ approved: true, approver: 'first' });
    // Rejected updates leave no trace in history.
    const history = await h.client.workflow.getHandle(turnId).fetchHistory();
    const accepted = history.events!.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    expect(accepted).toHaveLength(1);
  });
  expect(ran).toEqual(['touch:1']);
});

test('a malformed or stale signal is recorded as DECISION_REJECTED and the turn carries on', async () => {
  h.model.setScript([{ toolCalls: [{ id: 'g1', name: 'touch', arguments: { n: 5 } }] }, { content: 'signalled' }]);
  await (
    await worker()
  ).runUntil(async () => {
    const { turnId } = await startPaused('gated', 'signal');
    await h.tiller.signalDecision(turnId, { approved: 'maybe' });
    await h.tiller.signalDecision(turnId, 'not even an object');
    await h.tiller.signalDecision(turnId, { id: 'zzz', approved: true });
    const rejected = await waitForState(
      h.tiller,
      turnId,
      (s) => s.events.filter((e) => e.type === 'DECISION_REJECTED').length === 3,
    );
    expect(rejected.status).toBe('awaiting_approval');
    expect(rejected.pendingApprovals.map((p) => p.id)).toEqual(['g1']);
    await h.tiller.signalDecision(turnId, { id: 'g1', approved: true, approver: 'sig' });
    const result = await h.tiller.result(turnId);
    expect(result.status).toBe('completed');
    const state = await h.tiller.state(turnId);
    expect(state.toolCalls[0]?.decision).toMatchObject({ approved: true, approver: 'sig', via: 'signal' });
    await recordFixture(h.client, turnId, 'signals-rejected-then-approved');
    const reasons = state.events.flatMap((e) => (e.type === 'DECISION_REJECTED' ? [e.reason] : []));
    expect(reasons[0]).toMatch(/malformed decision/);
    expect(reasons[2]).toMatch(/unknown tool call id zzz/);
  });
  expect(ran).toEqual(['touch:5']);
});
