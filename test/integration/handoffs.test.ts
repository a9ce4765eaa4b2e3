/**
 * Handoffs (`defineAgent({ handoffs })`): a triage agent gives the turn to a billing agent, which asks
 * for approval under its own policy and answers; the hostile cases (a handoff loop, two handoffs in one
 * response, a filter that returns garbage) each end defined, with the model told why.
 */
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { handoff } from '../../src/agents/handoffs';
import type { TurnEvent } from '../../src/core/state/events';
import { scriptByInstructions } from '../../src/testing/scripted-model';
import { defineTool } from '../../src/tools/define';
import { recordFixture } from '../support/fixtures';
import { awaitingApproval, useHarness, waitForState } from '../support/harness';

const h = useHarness();

const refunds: string[] = [];
const refund = defineTool({
  name: 'refund',
  description: 'refund an order',
  input: z.object({ order: z.string() }),
  execute: ({ order }) => {
    refunds.push(order);
    return `refunded ${order}`;
  },
});
const lookup = defineTool({ name: 'lookup', description: 'look up', input: z.object({}), execute: () => 'found' });
const handedOff: string[] = [];
const agents = [
  defineAgent({
    name: 'triage',
    instructions: 'You triage.',
    tools: ['lookup'],
    handoffs: [
      handoff({
        agent: 'billing',
        description: 'Billing questions',
        onHandoff: ({ from, to }) => void handedOff.push(`${from}>${to}`),
      }),
      'support',
    ],
  }),
  defineAgent({
    name: 'billing',
    instructions: 'You do billing.',
    tools: ['refund'],
    approvals: { refund: true },
    handoffs: ['triage'],
  }),
  defineAgent({
    name: 'support',
    instructions: 'You support.',
    tools: [],
    handoffs: [handoff({ agent: 'triage', inputFilter: () => [{ role: 'wizard', content: 1 }] as never })],
  }),
];
const withWorker = <T>(fn: () => Promise<T>) => h.withWorker(fn, { agents, tools: [refund, lookup] });
const types = (events: TurnEvent[]) => events.map((e) => e.type);
const call = (name: string, args: Record<string, unknown> = {}, id?: string) => ({
  toolCalls: [{ name, arguments: args, ...(id && { id }) }],
});

test('triage hands off to billing, which asks for approval under its own policy and answers', async () => {
  h.model.setScript(
    scriptByInstructions({
      'You triage.': [call('transfer_to_billing', { reason: 'a refund' })],
      'You do billing.': [call('refund', { order: 'A-1' }, 'r1'), { content: 'Refunded A-1.' }],
    }),
  );
  const turnId = h.turnId('handoff');
  await withWorker(async () => {
    await h.tiller.startTurn({ agent: 'triage', input: 'refund order A-1', turnId });
    const waiting = await waitForState(h.tiller, turnId, awaitingApproval);
    expect(waiting.agent).toBe('billing');
    expect(waiting.pendingApprovals.map((p) => p.tool)).toEqual(['refund']);
    await h.tiller.approve(turnId, 'r1');
    const result = await h.tiller.result(turnId);
    expect([result.status, result.output, result.agent]).toEqual(['completed', 'Refunded A-1.', 'billing']);
    const state = await h.tiller.state(turnId);
    expect(types(state.events)).toEqual([
      'AGENT_STARTED',
      'MODEL_CALLED',
      'HANDOFF',
      'TOOL_ENDED',
      'MODEL_CALLED',
      'APPROVAL_REQUESTED',
      'TOOL_APPROVED',
      'TOOL_STARTED',
      'TOOL_ENDED',
      'MODEL_CALLED',
      'TURN_COMPLETED',
    ]);
    expect(state.events.find((e) => e.type === 'HANDOFF')).toMatchObject({
      from: 'triage',
      to: 'billing',
      reason: 'a refund',
    });
    expect(state.handedOffFrom).toEqual(['triage']);
    const described = await h.client.workflow.getHandle(turnId).describe();
    expect(described.searchAttributes.TillerAgent).toEqual(['billing']);
    await recordFixture(h.client, turnId, 'handoff-approved');
  });
  expect(refunds).toEqual(['A-1']);
  expect(handedOff).toEqual(['triage>billing']);
  // Billing's first request: its own instructions and tools, the conversation so far after them.
  const billing = h.model.requests[1]!.body;
  expect(billing.messages[0]).toEqual({ role: 'system', content: 'You do billing.' });
  expect(billing.messages[1]).toEqual({ role: 'user', content: 'refund order A-1' });
  expect(billing.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual([
    'refund',
    'transfer_to_triage',
  ]);
});

test('a handoff loop is bounded: past the limit the model reads why and answers itself', async () => {
  h.model.setScript(
    scriptByInstructions({
      'You triage.': ({ index }) => (index < 5 ? call('transfer_to_billing') : { content: 'triage answers' }),
      'You do billing.': ({ index }) => (index < 5 ? call('transfer_to_triage') : { content: 'billing answers' }),
    }),
  );
  const turnId = h.turnId('loop');
  await withWorker(async () => {
    await h.tiller.startTurn({ agent: 'triage', input: 'loop', turnId });
    const result = await h.tiller.result(turnId);
    expect(result.status).toBe('completed');
    const state = await h.tiller.state(turnId);
    expect(state.events.filter((e) => e.type === 'HANDOFF')).toHaveLength(8);
    const refused = state.toolCalls.find((c) => c.status === 'failed');
    expect(refused?.error).toMatch(/handed over 8 times already/);
  });
});

test('two handoffs in one response: the first is taken, the second refused', async () => {
  h.model.setScript(
    scriptByInstructions({
      'You triage.': [
        {
          toolCalls: [
            { name: 'transfer_to_billing', arguments: {} },
            { name: 'transfer_to_support', arguments: {} },
          ],
        },
      ],
      'You do billing.': [{ content: 'billing here' }],
    }),
  );
  const turnId = h.turnId('two');
  await withWorker(async () => {
    await h.tiller.startTurn({ agent: 'triage', input: 'two', turnId });
    expect((await h.tiller.result(turnId)).output).toBe('billing here');
    const state = await h.tiller.state(turnId);
    expect(state.toolCalls.map((c) => c.status)).toEqual(['succeeded', 'failed']);
    expect(state.toolCalls[1]!.error).toMatch(/only one handoff per response/);
  });
});

test('an input filter that returns garbage: the handoff fails, the model reads why, the turn goes on', async () => {
  h.model.setScript(
    scriptByInstructions({
      'You triage.': [call('transfer_to_support')],
      'You support.': [call('transfer_to_triage'), { content: 'support answers' }],
    }),
  );
  const turnId = h.turnId('filter');
  await withWorker(async () => {
    await h.tiller.startTurn({ agent: 'triage', input: 'filter', turnId });
    const result = await h.tiller.result(turnId);
    expect([result.status, result.output, result.agent]).toEqual(['completed', 'support answers', 'support']);
    const state = await h.tiller.state(turnId);
    expect(state.toolCalls.at(-1)?.error).toMatch(/handoff to triage failed: .*role wizard/);
  });
  const last = h.model.requests.at(-1)!.body.messages.at(-1);
  expect(last.content).toMatch(/handoff to triage failed/);
});

test('a worker refuses an agent that hands off to an unregistered agent', async () => {
  await expect(
    h.worker({ agents: [defineAgent({ name: 'x', instructions: 'x', tools: [], handoffs: ['ghost'] })], tools: [] }),
  ).rejects.toThrow('agent x hands off to unregistered agents: ghost');
});
