/** Who may decide, on exactly which arguments, with which edits — and what the approver sees first. */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { createHarness, waitForState, awaitingApproval, type Harness } from '../support/harness';
import { recordFixture } from '../support/fixtures';
import { defineAgent } from '../../src/agents/define';
import { defineTool } from '../../src/tools/define';
import { fileTools } from '../../src/tools/files';
import { argsDigest } from '../../src/core/digest';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

const transfers: { to: string; cents: number }[] = [];
beforeEach(() => {
  transfers.length = 0;
  h.model.requests.length = 0;
});
const transfer = defineTool({
  name: 'transfer',
  description: 'move money',
  input: z.object({ to: z.string().min(1), cents: z.number().int().positive().max(100_000) }),
  execute: (args) => {
    transfers.push(args);
    return `sent ${args.cents} to ${args.to}`;
  },
});
const treasurer = defineAgent({
  name: 'treasurer',
  instructions: 'x',
  tools: ['transfer', 'read_file', 'delete_file'],
  approvals: { transfer: { approvers: ['alice', 'group:finance'] }, delete_file: true },
});
/** Gates nobody may decide: an empty list, at once or after escalation (they can only expire). */
const locked = defineAgent({
  name: 'locked',
  instructions: 'x',
  tools: ['transfer', 'delete_file'],
  approvals: {
    transfer: { approvers: [], timeout: '3s' },
    delete_file: { approvers: ['alice'], timeout: '1s', onTimeout: { escalate: { approvers: [], timeout: '3s' } } },
  },
});
const worker = () => {
  const { readFile, deleteFile } = fileTools(() => h.workspace);
  return h.worker({ agents: [treasurer, locked], tools: [transfer, readFile, deleteFile] });
};

async function paused(label: string, script: any[], agent = 'treasurer') {
  h.model.setScript(script);
  const turnId = h.turnId(label);
  await h.tiller.startTurn({ agent, input: label, turnId });
  return { turnId, state: await waitForState(h.tiller, turnId, awaitingApproval) };
}
const transferCall = (id: string, cents = 500) => ({
  toolCalls: [{ id, name: 'transfer', arguments: { to: 'bob', cents } }],
});

test('only listed approvers (or members of a listed group) may decide; others are rejected and audited', async () => {
  await (
    await worker()
  ).runUntil(async () => {
    const { turnId, state } = await paused('approvers', [transferCall('m1'), { content: 'paid' }]);
    expect(state.pendingApprovals[0]).toMatchObject({ id: 'm1', approvers: ['alice', 'group:finance'] });
    await expect(h.tiller.approve(turnId, 'm1', { approver: 'mallory' })).rejects.toThrow(
      /mallory may not decide transfer; allowed: alice, group:finance/,
    );
    await expect(h.tiller.approve(turnId, 'm1')).rejects.toThrow(/an anonymous approver may not decide/);
    const audited = await h.tiller.state(turnId);
    expect(audited.status).toBe('awaiting_approval');
    expect(audited.events.filter((e) => e.type === 'DECISION_REJECTED')).toEqual([
      expect.objectContaining({ via: 'update', id: 'm1', approver: 'mallory' }),
      expect.objectContaining({ via: 'update', id: 'm1' }),
    ]);
    const recorded = await h.tiller.decide(turnId, {
      id: 'm1',
      approved: true,
      approver: 'frank',
      approverGroups: ['finance'],
    });
    expect(recorded.approver).toBe('frank');
    await h.tiller.result(turnId);
  });
  expect(transfers).toEqual([{ to: 'bob', cents: 500 }]);
});

test('a decision carrying a stale argsDigest is rejected; the matching digest is accepted', async () => {
  await (
    await worker()
  ).runUntil(async () => {
    const { turnId, state } = await paused('digest', [transferCall('g1', 700), { content: 'ok' }]);
    const digest = state.pendingApprovals[0]!.argsDigest;
    await expect(
      h.tiller.decide(turnId, { id: 'g1', approved: true, approver: 'alice', argsDigest: 'sha256:' + '0'.repeat(64) }),
    ).rejects.toThrow(/does not match the pending call/);
    await h.tiller.decide(turnId, { id: 'g1', approved: true, approver: 'alice', argsDigest: digest });
    await h.tiller.result(turnId);
  });
  expect(transfers).toEqual([{ to: 'bob', cents: 700 }]);
});

test('argsDigest is salted per turn: equal arguments in two turns give different digests', async () => {
  await (
    await worker()
  ).runUntil(async () => {
    h.model.setScript([transferCall('s1', 321), transferCall('s1', 321), { content: 'ok' }, { content: 'ok' }]);
    const [one, two] = [h.turnId('salt-1'), h.turnId('salt-2')];
    const digests: string[] = [];
    for (const turnId of [one, two]) {
      await h.tiller.startTurn({ agent: 'treasurer', input: 'pay', turnId });
      digests.push((await waitForState(h.tiller, turnId, awaitingApproval)).pendingApprovals[0]!.argsDigest);
    }
    const [d1, d2] = digests as [string, string];
    expect(d1).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(d1).not.toBe(d2);
    // Not the plain digest of the arguments: a reader cannot confirm a guess of them.
    expect(d1).not.toBe(argsDigest('transfer', { to: 'bob', cents: 321 }));
    // The digest shown is the one a decision must carry.
    await expect(h.tiller.decide(two, { id: 's1', approved: true, approver: 'alice', argsDigest: d1 })).rejects.toThrow(
      /does not match the pending call/,
    );
    await h.tiller.decide(one, { id: 's1', approved: true, approver: 'alice', argsDigest: d1 });
    await h.tiller.result(one);
    await recordFixture(h.client, one, 'salted-digest-decided');
    await h.tiller.decide(two, { id: 's1', approved: false, approver: 'alice', argsDigest: d2 });
    await h.tiller.result(two);
  });
  expect(transfers).toEqual([{ to: 'bob', cents: 321 }]);
});

test('an empty approver list means nobody may decide (at once, or after an escalation); the call expires', async () => {
  fs.writeFileSync(path.join(h.workspace, 'locked.txt'), 'locked\n');
  await (
    await worker()
  ).runUntil(async () => {
    const { turnId, state } = await paused(
      'nobody',
      [
        {
          toolCalls: [
            { id: 'n1', name: 'transfer', arguments: { to: 'bob', cents: 5 } },
            { id: 'n2', name: 'delete_file', arguments: { path: 'locked.txt' } },
          ],
        },
        { content: 'nobody decided' },
      ],
      'locked',
    );
    expect(state.pendingApprovals.find((p) => p.id === 'n1')!.approvers).toEqual([]);
    await expect(h.tiller.approve(turnId, 'n1', { approver: 'alice' })).rejects.toThrow(
      'alice may not decide transfer; allowed: nobody',
    );
    await expect(h.tiller.approve(turnId, 'n1')).rejects.toThrow(/an anonymous approver may not decide transfer/);
    await waitForState(h.tiller, turnId, (s) => s.pendingApprovals.some((p) => p.id === 'n2' && p.escalated));
    await expect(h.tiller.approve(turnId, 'n2', { approver: 'alice' })).rejects.toThrow(
      'alice may not decide delete_file; allowed: nobody',
    );
    const result = await h.tiller.result(turnId);
    expect(result.toolCalls.map((c) => [c.id, c.status])).toEqual([
      ['n1', 'timed_out'],
      ['n2', 'timed_out'],
    ]);
    await recordFixture(h.client, turnId, 'empty-approvers-nobody');
  });
  expect(transfers).toEqual([]);
  expect(fs.existsSync(path.join(h.workspace, 'locked.txt'))).toBe(true);
});

test('approve with edited arguments: validated against the schema, run with them, both recorded', async () => {
  const turnIdHolder: string[] = [];
  await (
    await worker()
  ).runUntil(async () => {
    const { turnId } = await paused('edit', [transferCall('e1', 90_000), { content: 'sent less' }]);
    turnIdHolder.push(turnId);
    await expect(
      h.tiller.decide(turnId, { id: 'e1', approved: true, approver: 'alice', args: { to: 'bob', cents: -5 } }),
    ).rejects.toThrow(/edited args rejected: invalid arguments for transfer: cents/);
    await expect(
      h.tiller.decide(turnId, { id: 'e1', approved: false, approver: 'alice', args: { to: 'bob', cents: 5 } }),
    ).rejects.toThrow(/only meaningful when approving/);
    const recorded = await h.tiller.decide(turnId, {
      id: 'e1',
      approved: true,
      approver: 'alice',
      args: { to: 'bob', cents: 9_000 },
    });
    expect(recorded.args).toEqual({ to: 'bob', cents: 9_000 });
    await h.tiller.result(turnId);
    await recordFixture(h.client, turnId, 'approve-with-edited-args');
    const state = await h.tiller.state(turnId);
    expect(state.toolCalls[0]).toMatchObject({
      args: { to: 'bob', cents: 90_000 },
      decision: { args: { to: 'bob', cents: 9_000 }, approver: 'alice' },
      result: 'sent 9000 to bob',
    });
  });
  expect(transfers).toEqual([{ to: 'bob', cents: 9_000 }]);
  const toolMsg = h.model.requests[1]!.body.messages.find((m: any) => m.role === 'tool');
  expect(toolMsg.content).toBe('sent 9000 to bob');
});

test('a preview shows the approver the real effect before they decide; invalid args never reach a human', async () => {
  fs.writeFileSync(path.join(h.workspace, 'big.log'), 'line one\nline two\nline three\n');
  await (
    await worker()
  ).runUntil(async () => {
    const { turnId, state } = await paused('preview', [
      {
        toolCalls: [
          { id: 'v1', name: 'delete_file', arguments: { path: 'big.log' } },
          { id: 'v2', name: 'delete_file', arguments: { file: 'oops' } },
        ],
      },
      { content: 'previewed' },
    ]);
    expect(state.pendingApprovals).toHaveLength(1);
    expect(state.pendingApprovals[0]).toMatchObject({ id: 'v1' });
    expect(state.pendingApprovals[0]!.preview).toBe(
      'would delete big.log (29 bytes). First lines:\nline one\nline two\nline three\n',
    );
    expect(state.toolCalls.find((c) => c.id === 'v2')).toMatchObject({ status: 'failed' });
    // The Temporal UI shows the same text as the workflow's current details.
    const metadata: any = await h.client.workflow.getHandle(turnId).query('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toContain('would delete big.log (29 bytes)');
    expect(metadata.currentDetails).toContain(`tiller approve ${turnId} v1`);
    await h.tiller.deny(turnId, 'v1', { reason: 'keep the log' });
    await h.tiller.result(turnId);
  });
  expect(fs.existsSync(path.join(h.workspace, 'big.log'))).toBe(true);
});
