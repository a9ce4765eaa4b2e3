/**
 * The demo agent (src/agents/assistant.ts: read_file free, delete_file gated) against llama.cpp's
 * llama-server with a real model: read, gated delete, approve, completed; and a denied delete whose
 * reason reaches the model. The model's words are not asserted; the events, state, approvals, the tool
 * calls and usage as the server sent them are.
 *
 * SmolLM2-135M never starts a tool call on its own: the wire tap makes it call `read_file`, then
 * `delete_file`, then answer in text (support/wire-tap.ts says how and why).
 */
import fs from 'node:fs';
import path from 'node:path';
import { defineAgent } from '../../src/agents/define';
import { assistant } from '../../src/agents/assistant';
import { awaitingApproval, waitForState } from '../support/harness';
import { expectRecordedAsServed, expectUsageAsServed } from './support/expect-wire';
import { createRealHarness, type RealHarness } from './support/harness';
import { toolPlan } from './support/wire-tap';

const agent = defineAgent({
  ...assistant,
  modelSettings: { maxTokens: 96, temperature: 0, seed: 42, parallelToolCalls: false },
});

let h: RealHarness;
beforeAll(async () => {
  h = await createRealHarness();
});
afterAll(async () => {
  await h?.close();
});

const TOOL_STEPS = [
  'AGENT_STARTED',
  'MODEL_CALLED',
  'TOOL_STARTED',
  'TOOL_ENDED',
  'MODEL_CALLED',
  'APPROVAL_REQUESTED',
];

test('read, gated delete, approve: the turn completes as the server answered', async () => {
  const input = 'Read notes.txt, then delete it.';
  fs.writeFileSync(path.join(h.workspace, 'notes.txt'), 'Hello from Tiller!\n');
  h.tap.steer(input, toolPlan(['read_file', 'delete_file', 'none']));
  const turnId = h.turnId('demo-approve');
  const state = await h.withWorker([agent], async () => {
    await h.tiller.startTurn({ agent: 'assistant', input, turnId });
    const paused = await waitForState(h.tiller, turnId, awaitingApproval, 60_000);
    expect(paused.pendingApprovals).toEqual([expect.objectContaining({ tool: 'delete_file' })]);
    const pending = paused.pendingApprovals[0]!;
    await h.tiller.approve(turnId, pending.id, { approver: 'alice' });
    const result = await h.tiller.result(turnId);
    expect(result.status).toBe('completed');
    expectUsageAsServed(result.usage, await h.tap.exchanges(input));
    return h.tiller.state(turnId);
  });

  expect(state.events.map((e) => e.type)).toEqual([
    ...TOOL_STEPS,
    'TOOL_APPROVED',
    'TOOL_STARTED',
    expect.stringMatching(/^TOOL_(ENDED|FAILED)$/),
    'MODEL_CALLED',
    'TURN_COMPLETED',
  ]);
  const exchanges = await h.tap.exchanges(input);
  expect(exchanges).toHaveLength(3);
  expectRecordedAsServed(state, exchanges);
  expect(exchanges.map((e) => e.body.stream)).toEqual([true, true, true]);
  expect(state.toolCalls.map((c) => c.name)).toEqual(['read_file', 'delete_file']);
  expect(state.toolCalls[1]?.decision).toMatchObject({ approved: true, approver: 'alice' });
  // What the tool returned went back to the model as the tool message of its call.
  const read = state.toolCalls[0]!;
  expect(exchanges[1]!.body.messages).toContainEqual(
    expect.objectContaining({ role: 'tool', tool_call_id: read.id, content: expect.any(String) }),
  );
  const completed = state.events.at(-1);
  expect(completed).toMatchObject({ type: 'TURN_COMPLETED', output: expect.any(String) });
});

test('a denied delete: the reason reaches the model, the file stays, the turn completes', async () => {
  const input = 'Read plan.txt, then delete it.';
  const reason = 'Keep plan.txt: the team still needs it (ref 7f3a)';
  fs.writeFileSync(path.join(h.workspace, 'plan.txt'), 'Ship on Friday.\n');
  h.tap.steer(input, toolPlan(['read_file', 'delete_file', 'none']));
  const turnId = h.turnId('demo-deny');
  const state = await h.withWorker([agent], async () => {
    await h.tiller.startTurn({ agent: 'assistant', input, turnId });
    const paused = await waitForState(h.tiller, turnId, awaitingApproval, 60_000);
    await h.tiller.deny(turnId, paused.pendingApprovals[0]!.id, { reason, approver: 'bob' });
    const result = await h.tiller.result(turnId);
    expect(result.status).toBe('completed');
    expectUsageAsServed(result.usage, await h.tap.exchanges(input));
    return h.tiller.state(turnId);
  });

  expect(state.events.map((e) => e.type)).toEqual([...TOOL_STEPS, 'TOOL_DENIED', 'MODEL_CALLED', 'TURN_COMPLETED']);
  expect(fs.readFileSync(path.join(h.workspace, 'plan.txt'), 'utf8')).toBe('Ship on Friday.\n');
  const denied = state.toolCalls[1]!;
  expect(denied).toMatchObject({ name: 'delete_file', status: 'denied' });
  const exchanges = await h.tap.exchanges(input);
  expect(exchanges).toHaveLength(3);
  expectRecordedAsServed(state, exchanges);
  // The model's next request carries the denial, with the approver's reason, as the call's tool result.
  const toolMessage = exchanges[2]!.body.messages.find(
    (m: { role: string; tool_call_id?: string }) => m.role === 'tool' && m.tool_call_id === denied.id,
  );
  expect(toolMessage?.content).toEqual(expect.stringContaining(reason));
});
