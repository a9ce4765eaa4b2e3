/**
 * Dynamic instructions: `instructions` as a function of the turn's input and session, evaluated once in
 * `startTurn` and recorded with the spec — a worker with another function replays the recorded text.
 */
import { z } from 'zod';
import { defineAgent, type InstructionsFn } from '../../src/agents/define';
import { defineTool } from '../../src/tools/define';
import { awaitingApproval, createHarness, scriptByInput, waitForState, type Harness } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

const ping = defineTool({ name: 'ping', description: 'ping', input: z.object({}), execute: () => 'pong' });
const agentWith = (instructions: InstructionsFn) => [
  defineAgent({ name: 'dyn', instructions, tools: ['ping'], approvals: { ping: true } }),
];

test('instructions computed from the input when the turn starts, and replayed as recorded', async () => {
  const calls: string[] = [];
  const v1: InstructionsFn = async ({ agent, input, turnId, sessionId }) => {
    calls.push(turnId);
    return `v1 for ${agent}: ${input.toUpperCase()} (${sessionId ?? 'no session'})`;
  };
  h.model.setScript(
    scriptByInput({ 'say hi': [{ toolCalls: [{ id: 'p1', name: 'ping', arguments: {} }] }, { content: 'hi' }] }),
  );
  const turnId = h.turnId('dyn');
  await h.withWorker(
    async () => {
      await h.tiller.startTurn({ agent: 'dyn', input: 'say hi', turnId });
      await waitForState(h.tiller, turnId, awaitingApproval);
    },
    { agents: agentWith(v1), tools: [ping] },
  );
  // Another worker, another function: the paused turn replays its recorded instructions.
  await h.withWorker(
    async () => {
      await h.tiller.approve(turnId, 'p1');
      expect((await h.tiller.result(turnId)).output).toBe('hi');
    },
    { agents: agentWith(() => 'v2'), tools: [ping] },
  );
  expect(calls).toEqual([turnId]);
  const system = h.model.requests.map((r) => r.body.messages[0]);
  expect(system).toEqual([
    { role: 'system', content: 'v1 for dyn: SAY HI (no session)' },
    { role: 'system', content: 'v1 for dyn: SAY HI (no session)' },
  ]);
});

test('instructions that are not a string fail the turn at start, clearly', async () => {
  const turnId = h.turnId('dyn-bad');
  await h.withWorker(
    async () => {
      await h.tiller.startTurn({ agent: 'dyn', input: 'x', turnId });
      const result = await h.tiller.result(turnId);
      expect(result.status).toBe('failed');
      expect(result.error).toContain(
        'agent dyn: its instructions function must return a string of at most 100000 characters',
      );
    },
    { agents: agentWith((() => 42) as unknown as InstructionsFn), tools: [ping] },
  );
});
