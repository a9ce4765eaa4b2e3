/**
 * Fail closed in the workflow (issue 33): on a worker that verifies approvers (`verifiedApprovers`, on in
 * the secured cluster), a decision without the verified `tillerApprover` header — a batch operation's
 * signal, a client that went around the authorizer — is refused and recorded, whatever `approver` its body
 * names; a decision with the header still decides, as the header's approver. With the mode off (a dev
 * server, where no header is checked), a header-less decision decides as its body says, as before.
 *
 * The dev server checks no header, so the header is sent here by the same client interceptor a token of
 * the secured cluster installs (src/client/caller.ts): what the workflow sees is what it sees there.
 */
import { Client } from '@temporalio/client';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { DecisionRejectedError, TillerClient } from '../../src/client';
import { decideHeadersInterceptor } from '../../src/client/caller';
import { defineTool } from '../../src/tools/define';
import { recordFixture } from '../support/fixtures';
import { awaitingApproval, scriptByInput, useHarness, waitForState } from '../support/harness';

const h = useHarness();

const transfer = defineTool({
  name: 'transfer',
  description: 'Move money; needs approval.',
  input: z.object({ amount: z.number() }),
  execute: async ({ amount }) => `moved ${amount}`,
});
const agents = [
  defineAgent({ name: 'treasurer', instructions: 'x', tools: ['transfer'], approvals: { transfer: true } }),
];
const tools = [transfer];
const script = (input: string) =>
  scriptByInput({
    [input]: [{ toolCalls: [{ id: 't-1', name: 'transfer', arguments: { amount: 5 } }] }, { content: 'moved' }],
  });

/** A client whose decisions carry the verified header for `subject`, as a secured-cluster token's do. */
const verifiedAs = (subject: string) =>
  new TillerClient(
    new Client({
      connection: h.client.connection,
      interceptors: { workflow: [decideHeadersInterceptor({ subject, groups: [] })] },
    }),
    h.taskQueue,
  );

const NO_HEADER = /this deployment verifies approvers, and the decision has no tillerApprover header/;

test('verifying approvers: a header-less signal and update are refused and recorded; a verified decision decides', async () => {
  h.model.setScript(script('verified transfer'));
  const turnId = h.turnId('verified');
  const state = await h.withWorker(
    async () => {
      await h.tiller.startTurn({ agent: 'treasurer', input: 'verified transfer', turnId });
      await waitForState(h.tiller, turnId, awaitingApproval);
      // The body names bob: a batch operation's signal would look just like this.
      await h.tiller.signalDecision(turnId, { id: 't-1', approved: true, approver: 'bob' });
      const update = h.tiller.decide(turnId, { id: 't-1', approved: true, approver: 'bob' });
      await expect(update).rejects.toThrow(DecisionRejectedError);
      await expect(update).rejects.toThrow(NO_HEADER);
      await waitForState(h.tiller, turnId, (s) => s.events.filter((e) => e.type === 'DECISION_REJECTED').length === 2);
      const waiting = await h.tiller.state(turnId);
      expect(waiting.pendingApprovals.map((p) => p.id)).toEqual(['t-1']);
      // Through the authorizer, the header names the approver: that decides.
      await expect(verifiedAs('carol').approve(turnId, 't-1')).resolves.toMatchObject({ approver: 'carol' });
      await expect(h.tiller.result(turnId)).resolves.toMatchObject({ status: 'completed', output: 'moved' });
      return h.tiller.state(turnId);
    },
    { agents, tools, verifiedApprovers: true },
  );
  await recordFixture(h.client, turnId, 'approver-header-required');
  const rejected = state.events.filter((e) => e.type === 'DECISION_REJECTED');
  expect(rejected).toEqual([
    expect.objectContaining({ via: 'signal', id: 't-1', reason: expect.stringMatching(NO_HEADER) }),
    expect.objectContaining({ via: 'update', id: 't-1', reason: expect.stringMatching(NO_HEADER) }),
  ]);
  // The body's approver is not believed, not even in the record of the refusal.
  expect(rejected.some((e) => 'approver' in e)).toBe(false);
  expect(state.toolCalls).toEqual([
    expect.objectContaining({
      id: 't-1',
      status: 'succeeded',
      decision: expect.objectContaining({ approver: 'carol' }),
    }),
  ]);
});

test('not verifying approvers (the default): a header-less signal decides as its body says', async () => {
  h.model.setScript(script('plain transfer'));
  const turnId = h.turnId('unverified');
  const state = await h.withWorker(
    async () => {
      await h.tiller.startTurn({ agent: 'treasurer', input: 'plain transfer', turnId });
      await waitForState(h.tiller, turnId, awaitingApproval);
      await h.tiller.signalDecision(turnId, { id: 't-1', approved: true, approver: 'bob' });
      await expect(h.tiller.result(turnId)).resolves.toMatchObject({ status: 'completed', output: 'moved' });
      return h.tiller.state(turnId);
    },
    { agents, tools },
  );
  expect(state.events.filter((e) => e.type === 'DECISION_REJECTED')).toEqual([]);
  expect(state.toolCalls).toEqual([
    expect.objectContaining({
      id: 't-1',
      status: 'succeeded',
      decision: expect.objectContaining({ approver: 'bob', via: 'signal' }),
    }),
  ]);
});
