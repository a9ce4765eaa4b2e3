/**
 * Hostile input against a real worker and dev server (issue "Hostile inputs cannot wedge, bloat, kill or
 * bypass a turn"): each case reproduces what was seen, and asserts the turn reaches a defined state,
 * `state` answers and stays small, no workflow task failed, and a gated tool never ran undecided.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHarness, waitForState, awaitingApproval, type Harness } from '../support/harness';
import { BOUNDS, jsonBytes } from '../../src/core/bounds';
import type { TurnState } from '../../src/core/state';
import { raw, rawClient, rawJson } from '../support/fuzz/raw-client';
import { recordFixture } from '../support/fixtures';
import { failedWorkflowTasks as failedTasksOf } from '../support/history';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

const failedWorkflowTasks = (turnId: string) => failedTasksOf(h.client, turnId);

const sentinel = () => {
  const file = path.join(h.workspace, 'keep.txt');
  fs.writeFileSync(file, 'precious\n');
  return file;
};

/** Runs a turn of the demo assistant against a scripted first response; returns its final state. */
async function turn(label: string, first: object, then: (turnId: string) => Promise<void> = async () => undefined) {
  h.model.setScript([first, { content: 'done' }]);
  h.model.requests.length = 0;
  const turnId = h.turnId(label);
  return h.withWorker(async () => {
    await h.tiller.startTurn({ agent: 'assistant', input: 'go', turnId });
    await then(turnId);
    const result = await h.tiller.result(turnId);
    const state = await h.tiller.state(turnId);
    return { turnId, result, state, failedTasks: await failedWorkflowTasks(turnId) };
  });
}

const deleteCall = (s: TurnState) => s.toolCalls.find((c) => c.name === 'delete_file');

test('a gated call whose arguments nest 20,000 levels deep fails as a tool error; no stack overflow, nothing ran', async () => {
  const file = sentinel();
  const depth = 20_000;
  const args = `{"path":${'['.repeat(depth)}${']'.repeat(depth)}}`;
  expect(args.length).toBeLessThan(64 * 1024); // under the agent's argument cap
  const { result, state, failedTasks } = await turn('deep-args', {
    toolCalls: [{ id: 'd1', name: 'delete_file', arguments: args }],
  });
  expect(result.status).toBe('completed');
  expect(failedTasks).toEqual([]);
  expect(deleteCall(state)).toMatchObject({ status: 'failed' });
  expect(deleteCall(state)!.error).toContain(`nested deeper than ${BOUNDS.jsonDepth} levels`);
  expect(fs.existsSync(file)).toBe(true);
  const tool = h.model.requests[1]!.body.messages.find((m: any) => m.role === 'tool');
  expect(tool.content).toContain('not valid JSON (nested deeper than 64 levels)');
});

test('a tool call whose name and id are 300 KB each is recorded bounded; state stays small, the model is told', async () => {
  const huge = (c: string) => c.repeat(300_000);
  const { result, state, failedTasks } = await turn('huge-name', {
    toolCalls: [{ id: huge('i'), name: huge('n'), arguments: {} }],
  });
  expect(result.status).toBe('completed');
  expect(failedTasks).toEqual([]);
  expect(state.toolCalls).toHaveLength(1);
  expect(state.toolCalls[0]!.id.length).toBeLessThanOrEqual(64);
  expect(state.toolCalls[0]!.name.length).toBeLessThanOrEqual(BOUNDS.name);
  expect(state.toolCalls[0]!.status).toBe('failed');
  expect(jsonBytes(state)).toBeLessThan(50_000);
  // The model gets its own id back (it must match its request), and a bounded error.
  const tool = h.model.requests[1]!.body.messages.find((m: any) => m.role === 'tool');
  expect(tool.tool_call_id === huge('i')).toBe(true);
  expect(tool.content.length).toBeLessThan(1_000);
});

test('decide signals with ~1 MB ids, approvers and reasons are rejected and recorded bounded; the call still waits', async () => {
  const file = sentinel();
  const { result, state, failedTasks } = await turn(
    'big-signals',
    { toolCalls: [{ id: 'g1', name: 'delete_file', arguments: { path: 'keep.txt' } }] },
    async (turnId) => {
      await waitForState(h.tiller, turnId, awaitingApproval);
      const mb = 'm'.repeat(1_000_000);
      await h.tiller.signalDecision(turnId, { id: mb, approved: true });
      await h.tiller.signalDecision(turnId, { id: 'g1', approved: true, approver: mb });
      await h.tiller.signalDecision(turnId, { id: 'g1', approved: false, reason: mb });
      const seen = await waitForState(
        h.tiller,
        turnId,
        (s) => s.events.filter((e) => e.type === 'DECISION_REJECTED').length === 3,
      );
      expect(seen.status).toBe('awaiting_approval');
      expect(jsonBytes(seen)).toBeLessThan(60_000);
      for (const e of seen.events.filter((e) => e.type === 'DECISION_REJECTED'))
        expect(jsonBytes(e)).toBeLessThan(8_000);
      await h.tiller.deny(turnId, 'g1', { reason: 'no' });
    },
  );
  expect(result.status).toBe('completed');
  expect(failedTasks).toEqual([]);
  expect(deleteCall(state)).toMatchObject({ status: 'denied' });
  expect(fs.existsSync(file)).toBe(true);
});

test('edited args nested past the bound are refused on both channels, bounded; the call still waits', async () => {
  const file = sentinel();
  let deep: unknown = 'x';
  for (let i = 0; i < 1_000; i++) deep = [deep];
  const { result, failedTasks } = await turn(
    'deep-decision',
    { toolCalls: [{ id: 'g2', name: 'delete_file', arguments: { path: 'keep.txt' } }] },
    async (turnId) => {
      await waitForState(h.tiller, turnId, awaitingApproval);
      await expect(
        h.tiller.decide(turnId, { id: 'g2', approved: true, args: { path: deep as string } }),
      ).rejects.toThrow(/nested deeper than 64 levels/);
      await h.tiller.signalDecision(turnId, { id: 'g2', approved: true, args: { path: deep } });
      const seen = await waitForState(h.tiller, turnId, (s) => s.events.some((e) => e.type === 'DECISION_REJECTED'));
      expect(seen.status).toBe('awaiting_approval');
      await h.tiller.deny(turnId, 'g2');
    },
  );
  expect(result.status).toBe('completed');
  expect(failedTasks).toEqual([]);
  expect(fs.existsSync(file)).toBe(true);
});

/** `n` calls of `read_file` on a file that exists (written here). */
function readCalls(n: number) {
  fs.writeFileSync(path.join(h.workspace, 'r.txt'), 'r\n');
  return Array.from({ length: n }, (_, i) => ({ id: `r${i}`, name: 'read_file', arguments: { path: 'r.txt' } }));
}

test(`a response of 40 calls: the first ${BOUNDS.callsPerResponse} run; a turn recorded when 64 ran replays as it ran`, async () => {
  const { turnId, state, failedTasks } = await turn('forty-calls', { toolCalls: readCalls(40) });
  // calls-per-response-64 was recorded on the code before the patch: 40 ran (test/unit/replay.test.ts).
  await recordFixture(h.client, turnId, `calls-per-response-${BOUNDS.callsPerResponse}`);
  expect(failedTasks).toEqual([]);
  expect(state.toolCalls.filter((c) => c.status === 'succeeded')).toHaveLength(32);
  expect(state.toolCalls.filter((c) => c.status === 'failed').map((c) => c.error)).toEqual(
    Array(8).fill('Error: 40 tool calls in one response; the first 32 ran, this one did not. Ask for fewer at a time.'),
  );
});

test(`200 calls in one response: the first ${BOUNDS.callsPerResponse} run, the rest fail with a reason the model reads`, async () => {
  const { result, state, failedTasks } = await turn('many-calls', { toolCalls: readCalls(200) });
  expect(result.status).toBe('completed');
  expect(failedTasks).toEqual([]);
  expect(state.toolCalls.filter((c) => c.status === 'succeeded')).toHaveLength(BOUNDS.callsPerResponse);
  const refused = state.toolCalls.filter((c) => c.status === 'failed');
  expect(refused).toHaveLength(200 - BOUNDS.callsPerResponse);
  expect(refused[0]!.error).toContain('200 tool calls in one response');
  expect(jsonBytes(state)).toBeLessThanOrEqual(BOUNDS.stateBytes);
});

test('with decide signals off, a signal is recorded as rejected (bounded) and only the update decides', async () => {
  const file = sentinel();
  h.model.setScript([
    { toolCalls: [{ id: 's1', name: 'delete_file', arguments: { path: 'keep.txt' } }] },
    { content: 'ok' },
  ]);
  const turnId = h.turnId('signals-off');
  await h.withWorker(
    async () => {
      await h.tiller.startTurn({ agent: 'assistant', input: 'go', turnId });
      await waitForState(h.tiller, turnId, awaitingApproval);
      await h.tiller.signalDecision(turnId, { id: 's1', approved: true, approver: 'x'.repeat(100_000) });
      const seen = await waitForState(h.tiller, turnId, (s) => s.events.some((e) => e.type === 'DECISION_REJECTED'));
      expect(seen.status).toBe('awaiting_approval');
      expect(seen.events.find((e) => e.type === 'DECISION_REJECTED')).toMatchObject({
        via: 'signal',
        reason: expect.stringContaining('decide signals are off'),
      });
      expect(fs.existsSync(file)).toBe(true);
      await h.tiller.deny(turnId, 's1', { reason: 'by update' });
      expect((await h.tiller.result(turnId)).status).toBe('completed');
      expect(await failedWorkflowTasks(turnId)).toEqual([]);
    },
    { decideSignal: false },
  );
});

test('decision ids that name Object.prototype members find no call: refused on both channels, nothing wedged', async () => {
  const file = sentinel();
  const { result, state, failedTasks } = await turn(
    'proto-ids',
    { toolCalls: [{ id: 'p1', name: 'delete_file', arguments: { path: 'keep.txt' } }] },
    async (turnId) => {
      await waitForState(h.tiller, turnId, awaitingApproval);
      for (const id of ['valueOf', 'constructor', 'toString', 'hasOwnProperty']) {
        await expect(h.tiller.approve(turnId, id)).rejects.toThrow(/unknown tool call id/);
      }
      for (const id of ['constructor', '__proto__', 'valueOf'])
        await h.tiller.signalDecision(turnId, { id, approved: true });
      const seen = await waitForState(
        h.tiller,
        turnId,
        (s) => s.events.filter((e) => e.type === 'DECISION_REJECTED').length === 3,
      );
      expect(seen.status).toBe('awaiting_approval');
      await h.tiller.deny(turnId, 'p1');
    },
  );
  expect(result.status).toBe('completed');
  expect(failedTasks).toEqual([]);
  expect(deleteCall(state)).toMatchObject({ status: 'denied' });
  expect(state.events.some((e) => e.type === 'TOOL_APPROVED')).toBe(false);
  expect(fs.existsSync(file)).toBe(true);
});

test('decision payloads the converter cannot read (not JSON, unknown encoding) are refused and recorded; nothing wedged', async () => {
  const file = sentinel();
  const hostile = rawClient(h.client.connection);
  const { turnId, result, state, failedTasks } = await turn(
    'unreadable-payloads',
    { toolCalls: [{ id: 'u1', name: 'delete_file', arguments: { path: 'keep.txt' } }] },
    async (turnId) => {
      await waitForState(h.tiller, turnId, awaitingApproval);
      const handle = hostile.workflow.getHandle(turnId);
      const payloads = [
        rawJson('\u0000'),
        rawJson('{"id": "u1", "approved": tr'),
        raw({ encoding: 'json/protobuf', data: 'garbage' }),
        raw({ encoding: undefined, data: '{"id":"u1","approved":true}' }),
        raw({ encoding: 'json/plain', data: '/w==', base64: true }), // 0xff: not UTF-8
      ];
      for (const p of payloads) {
        const refused = await handle.executeUpdate('decide', { args: [p] }).catch((err: Error) => err);
        expect((refused as Error & { cause?: Error }).cause?.message).toMatch(/payload/);
        await handle.signal('decide', p);
      }
      const seen = await waitForState(
        h.tiller,
        turnId,
        (s) => s.events.filter((e) => e.type === 'DECISION_REJECTED').length === payloads.length,
      );
      expect(seen.status).toBe('awaiting_approval');
      const reasons = seen.events.filter((e) => e.type === 'DECISION_REJECTED').map((e) => e.reason);
      expect(reasons.join('\n')).toMatch(/not valid JSON/);
      expect(reasons.join('\n')).toMatch(/encoding "json\/protobuf" is not accepted/);
      expect(reasons.join('\n')).toMatch(/no encoding/);
      expect(reasons.join('\n')).toMatch(/not UTF-8/);
      await h.tiller.deny(turnId, 'u1', { reason: 'after the garbage' });
    },
  );
  expect(result.status).toBe('completed');
  expect(failedTasks).toEqual([]);
  expect(deleteCall(state)).toMatchObject({ status: 'denied' });
  expect(fs.existsSync(file)).toBe(true);
  await recordFixture(h.client, turnId, 'unreadable-signals-refused');
});
