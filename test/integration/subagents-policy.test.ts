/**
 * Sub-agents under their parents' policy: a gated sub-agent call waits for a person (who may edit its
 * input), and a parent's hooks and approval hook reach an inheriting child's calls, not a non-inheriting
 * one's. The rest of the sub-agent tests: ./subagents.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { useHarness, waitForState } from '../support/harness';
import { defineAgent } from '../../src/agents/define';
import { subAgentTurnId } from '../../src/core/subagents';
import { scriptByInstructions } from '../../src/testing/scripted-model';
import { agents, RESEARCHER, researcherDeleting, subAgentHelpers } from '../support/subagents-fixture';

const h = useHarness();
const { withWorker, script, requestsOf } = subAgentHelpers(h);

test('a gated sub-agent call waits for a human (who may edit its input); an inheriting child gets the turn trust', async () => {
  for (const f of ['a.txt', 'b.txt', 'c.txt']) fs.writeFileSync(path.join(h.workspace, f), f);
  script([], researcherDeleting('b.txt'), [
    { toolCalls: [{ id: 'g1', name: 'delete_file', arguments: { path: 'a.txt' } }] },
    { toolCalls: [{ id: 'g2', name: 'ask_researcher', arguments: { input: 'delete c.txt' } }] },
    { content: 'guarded' },
  ]);
  const turnId = h.turnId('sub-gated');
  const childId = subAgentTurnId(turnId, 'g2');
  const { result, child } = await withWorker(async () => {
    await h.tiller.startTurn({ agent: 'gatekeeper', input: 'clean up', turnId });
    await waitForState(h.tiller, turnId, (s) => s.pendingApprovals[0]?.id === 'g1');
    await h.tiller.approve(turnId, 'g1', { scope: 'turn' });
    const asking = await waitForState(h.tiller, turnId, (s) => s.pendingApprovals[0]?.id === 'g2');
    expect(asking.pendingApprovals[0]).toMatchObject({ tool: 'ask_researcher', args: { input: 'delete c.txt' } });
    await expect(h.tiller.decide(turnId, { id: 'g2', approved: true, args: { task: 'x' } })).rejects.toThrow(
      /edited args rejected: invalid arguments for ask_researcher: input/,
    );
    await h.tiller.decide(turnId, { id: 'g2', approved: true, args: { input: 'delete b.txt' } });
    const result = await h.tiller.result(turnId);
    return { result, child: await h.tiller.state(childId) };
  });

  expect(result).toMatchObject({ status: 'completed', output: 'guarded' });
  expect(requestsOf(RESEARCHER)[0]!.body.messages.at(-1)).toEqual({ role: 'user', content: 'delete b.txt' });
  // The parent's turn-scope trust in delete_file came along: the child's (inherited) gate did not ask.
  expect(child.trust).toEqual([expect.objectContaining({ tool: 'delete_file', scope: 'turn' })]);
  expect(child.events.map((e) => e.type)).not.toContain('APPROVAL_REQUESTED');
  expect(child.toolCalls[0]).toMatchObject({ id: 'r1', status: 'succeeded', decision: { via: 'trust' } });
  expect(['a.txt', 'b.txt', 'c.txt'].map((f) => fs.existsSync(path.join(h.workspace, f)))).toEqual([
    false,
    false,
    true,
  ]);
});

test("the parent's hooks observe an inheriting child's tool calls, and not a non-inheriting one's", async () => {
  const WATCHER = 'You watch.';
  const seen: string[] = [];
  const watched = defineAgent({
    name: 'watched',
    instructions: WATCHER,
    tools: [],
    hooks: [{ name: 'audit', onToolStart: (call) => void seen.push(`${call.agent}:${call.tool}`) }],
    subAgents: {
      plain: { agent: 'researcher', description: 'Delegate.' },
      inheriting: { agent: 'researcher', description: 'Delegate under my hooks.', inherit: true },
    },
  });
  fs.writeFileSync(path.join(h.workspace, 'watched.txt'), 'watch me\n');
  const read = { toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'watched.txt' } }] };
  const run = async (tool: string) => {
    h.model.setScript(
      scriptByInstructions({
        [WATCHER]: [{ toolCalls: [{ id: 'w1', name: tool, arguments: { input: 'read it' } }] }, { content: 'ok' }],
        [RESEARCHER]: [read, { content: 'read' }],
      }),
    );
    const turnId = h.turnId(`hooks-${tool}`);
    await h.withWorker(
      async () => {
        await h.tiller.startTurn({ agent: 'watched', input: 'go', turnId });
        expect((await h.tiller.result(turnId)).status).toBe('completed');
      },
      { agents: [...agents, watched] },
    );
  };
  await run('plain');
  expect(seen).toEqual([]);
  await run('inheriting');
  expect(seen).toEqual(['researcher:read_file']);
});

test("the parent's approval hook decides an inheriting child's calls (it denies here), and not a non-inheriting one's", async () => {
  const GUARD = 'You guard by hook.';
  const asked: string[] = [];
  const guarded = defineAgent({
    name: 'guarded',
    instructions: GUARD,
    tools: [],
    hooks: [
      {
        name: 'no-deletes',
        approveTool: (call) => {
          asked.push(`${call.agent}:${call.tool}:${(call.inheritsFrom ?? []).join(',')}`);
          return call.tool === 'delete_file' ? { action: 'deny', reason: 'deletes are off today' } : true;
        },
      },
    ],
    subAgents: {
      plain: { agent: 'researcher', description: 'Delegate.' },
      inheriting: { agent: 'researcher', description: 'Delegate under my hooks.', inherit: true },
    },
  });
  const run = async (tool: string, file: string) => {
    fs.writeFileSync(path.join(h.workspace, file), 'bye\n');
    h.model.setScript(
      scriptByInstructions({
        [GUARD]: [{ toolCalls: [{ id: 'g1', name: tool, arguments: { input: `delete ${file}` } }] }, { content: 'ok' }],
        [RESEARCHER]: researcherDeleting(file),
      }),
    );
    const turnId = h.turnId(`guard-${tool}`);
    return h.withWorker(
      async () => {
        await h.tiller.startTurn({ agent: 'guarded', input: 'go', turnId });
        expect((await h.tiller.result(turnId)).status).toBe('completed');
        return h.tiller.state(subAgentTurnId(turnId, 'g1'));
      },
      { agents: [...agents, guarded] },
    );
  };

  // Without inherit the child runs under its own (ungated, hookless) policy: the file goes.
  const plain = await run('plain', 'plain.txt');
  expect(plain.toolCalls.find((c) => c.name === 'delete_file')?.status).toBe('succeeded');
  expect(fs.existsSync(path.join(h.workspace, 'plain.txt'))).toBe(false);

  // With inherit the parent's hook is asked about the child's call, knows whom it inherits from, and denies.
  asked.length = 0;
  const inheriting = await run('inheriting', 'kept.txt');
  const call = inheriting.toolCalls.find((c) => c.name === 'delete_file');
  expect(call).toMatchObject({ status: 'denied', result: 'deletes are off today', decision: { via: 'hook' } });
  expect(fs.existsSync(path.join(h.workspace, 'kept.txt'))).toBe(true);
  expect(asked).toContain('researcher:delete_file:guarded');
});
