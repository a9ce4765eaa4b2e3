/**
 * Waits longer than a deploy: a turn paused on the 0.1.0 workflow code (the bundle shipped then,
 * kept as a fixture) completes on today's code, which changed the approval path behind `patched`.
 */
import path from 'node:path';
import { z } from 'zod';
import { useHarness, waitForState, awaitingApproval } from '../support/harness';
import { defineAgent } from '../../src/agents/define';
import { defineTool } from '../../src/tools/define';
import type { TurnState } from '../../src/core/state';
import { PATCH_WINDOW_IN_MODEL_CALL } from '../../src/workflows/patches';
import { patchIds } from '../support/history';

const V010 = { codePath: path.resolve(__dirname, '../fixtures/bundles/workflows-v0.1.0.js') };

const h = useHarness();

const touched: number[] = [];
const touch = defineTool({
  name: 'touch',
  description: 'gated, no preview',
  input: z.object({ n: z.number() }),
  execute: ({ n }) => {
    touched.push(n);
    return `touched ${n}`;
  },
});
const gatekeeper = defineAgent({ name: 'gatekeeper', instructions: 'x', tools: ['touch'], approvals: { touch: true } });
const options = { agents: [gatekeeper], tools: [touch] };
const onV010 = { ...options, workflowBundle: V010 };

async function markers(turnId: string): Promise<string[]> {
  const history = await h.client.workflow.getHandle(turnId).fetchHistory();
  return history.events!.flatMap((e) =>
    e.markerRecordedEventAttributes ? [e.markerRecordedEventAttributes.markerName!] : [],
  );
}

const withoutText = (state: TurnState): TurnState => ({
  ...state,
  events: state.events.map((e) => {
    if (e.type !== 'MODEL_CALLED') return e;
    const { text: _text, ...rest } = e;
    return rest;
  }),
});

test('a turn paused on 0.1.0 resumes and completes on the current code', async () => {
  h.model.setScript([{ toolCalls: [{ id: 'v1', name: 'touch', arguments: { n: 1 } }] }, { content: 'done' }]);
  const turnId = h.turnId('versioned');
  const before = await h.withWorker(async () => {
    await h.tiller.startTurn({ agent: 'gatekeeper', input: 'go', turnId });
    return waitForState(h.tiller, turnId, awaitingApproval);
  }, onV010);
  const after = await h.withWorker(async () => {
    // The same facts; the current code also reports each call's text (MODEL_CALLED.text, from v0.3),
    // derived from the recorded result.
    const now = await h.tiller.state(turnId);
    expect(now.events.find((e) => e.type === 'MODEL_CALLED')).toMatchObject({ text: null });
    expect(withoutText(now)).toEqual(before);
    await h.tiller.approve(turnId, 'v1', { approver: 'after-deploy' });
    expect(await h.tiller.result(turnId)).toMatchObject({ status: 'completed', output: 'done' });
    return h.tiller.state(turnId);
  }, options);
  expect(touched).toEqual([1]);
  expect(after.toolCalls[0]).toMatchObject({ status: 'succeeded', decision: { approver: 'after-deploy' } });
  expect(await markers(turnId)).toEqual([]); // the old path, as recorded: no patch marker
});

test('the same call on the current code is validated before a human is asked (behind the patch)', async () => {
  h.model.setScript([{ toolCalls: [{ id: 'v2', name: 'touch', arguments: { n: 'one' } }] }, { content: 'fixed' }]);
  const turnId = h.turnId('patched');
  const state = await h.withWorker(async () => {
    await h.tiller.startTurn({ agent: 'gatekeeper', input: 'go', turnId });
    await h.tiller.result(turnId);
    return h.tiller.state(turnId);
  }, options);
  expect(state.events.map((e) => e.type)).not.toContain('APPROVAL_REQUESTED');
  expect(state.toolCalls[0]).toMatchObject({
    status: 'failed',
    error: expect.stringMatching(/^invalid arguments for touch: n:/),
  });
  const history = await h.client.workflow.getHandle(turnId).fetchHistory();
  // One marker: a run of the current version takes every earlier patch (validate-args-before-approval among them) without its own.
  expect(patchIds(history.events ?? [])).toEqual([PATCH_WINDOW_IN_MODEL_CALL]);
});

test('on 0.1.0 the same invalid call would have reached a human (the change is real)', async () => {
  h.model.setScript([{ toolCalls: [{ id: 'v3', name: 'touch', arguments: { n: 'one' } }] }, { content: 'x' }]);
  const turnId = h.turnId('old-path');
  await h.withWorker(async () => {
    await h.tiller.startTurn({ agent: 'gatekeeper', input: 'go', turnId });
    const paused = await waitForState(h.tiller, turnId, awaitingApproval);
    expect(paused.pendingApprovals.map((p) => p.id)).toEqual(['v3']);
    await h.tiller.deny(turnId, 'v3');
    await h.tiller.result(turnId);
  }, onV010);
});
