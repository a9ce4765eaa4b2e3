/** Hook order, failing hooks, the approval hook as an intervention, and tool errors folded for the model. */
import { z } from 'zod';
import { recordFixture } from '../support/fixtures';
import { createHarness, waitForState, awaitingApproval, type Harness } from '../support/harness';
import { defineAgent } from '../../src/agents/define';
import type { TillerHooks } from '../../src/agents/hooks';
import { defineTool } from '../../src/tools/define';
import { Ask, Deny, Proceed } from '../../src/core/policy';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

const log: string[] = [];
beforeEach(() => {
  log.length = 0;
  h.model.requests.length = 0;
});
const toolMessage = (i: number, id: string) =>
  h.model.requests[i]!.body.messages.find((m: any) => m.role === 'tool' && m.tool_call_id === id)?.content;

const work = defineTool({
  name: 'work',
  description: 'does work',
  input: z.object({ task: z.string(), times: z.number().int().positive().optional() }),
  execute: ({ task }, ctx) => {
    log.push(`execute:${task}:${ctx.idempotencyKey}`);
    return { done: task };
  },
});
const explode = defineTool({
  name: 'explode',
  description: 'always throws',
  input: z.object({}),
  execute: () => {
    log.push('execute:explode');
    throw new Error('disk on fire');
  },
});

const recorder: TillerHooks = {
  name: 'recorder',
  approveTool: (c) => {
    log.push(`approve:${c.tool}`);
    return Proceed;
  },
  onAgentStart: (c) => void log.push(`agentStart:${c.agent}`),
  onToolStart: (c) => void log.push(`start:${c.tool}`),
  onToolEnd: (c) => void log.push(`end:${c.tool}:${c.result}`),
};
const agent = (name: string, hooks: TillerHooks[], extra: Partial<Parameters<typeof defineAgent>[0]> = {}) =>
  defineAgent({ name, instructions: 'hooks test', tools: ['work', 'explode'], hooks, ...extra });

const agents = [
  agent('ordered', [recorder]),
  agent('broken-observers', [
    {
      name: 'flaky-observer',
      onAgentStart: () => {
        throw new Error('agent start boom');
      },
      onToolStart: () => {
        throw new Error('start boom');
      },
      onToolEnd: () => {
        throw new Error('end boom');
      },
    },
    recorder,
  ]),
  agent('broken-approver', [
    {
      name: 'bad-approver',
      approveTool: () => {
        throw new Error('policy database unreachable');
      },
    },
    recorder,
  ]),
  agent('policy-hook', [
    {
      name: 'policy',
      approveTool: (c) => {
        const task = (c.args as { task?: string }).task;
        if (task === 'rm') return Deny('rm is never allowed');
        if (task === 'deploy') return Ask;
        return Proceed;
      },
    },
  ]),
];

const worker = () => h.worker({ agents, tools: [work, explode] });

test('hook order per call: approve → on tool start → tool → on tool end; on agent start once', async () => {
  h.model.setScript([
    { toolCalls: [{ id: 'o1', name: 'work', arguments: { task: 'a' } }] },
    { toolCalls: [{ id: 'o2', name: 'work', arguments: { task: 'b' } }] },
    { content: 'finished' },
  ]);
  const turnId = h.turnId('order');
  await (
    await worker()
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'ordered', input: 'go', turnId });
    expect((await h.tiller.result(turnId)).status).toBe('completed');
  });
  expect(log).toEqual([
    'agentStart:ordered',
    'approve:work',
    'start:work',
    `execute:a:${turnId}:o1`,
    'end:work:{"done":"a"}',
    'approve:work',
    'start:work',
    `execute:b:${turnId}:o2`,
    'end:work:{"done":"b"}',
  ]);
});

test('throwing observer hooks are caught, logged as HOOK_FAILED, and the turn completes', async () => {
  h.model.setScript([{ toolCalls: [{ id: 'f1', name: 'work', arguments: { task: 'x' } }] }, { content: 'still fine' }]);
  const turnId = h.turnId('broken-observers');
  const state = await (
    await worker()
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'broken-observers', input: 'go', turnId });
    const result = await h.tiller.result(turnId);
    expect(result).toMatchObject({ status: 'completed', output: 'still fine' });
    await recordFixture(h.client, turnId, 'hooks-failing');
    return h.tiller.state(turnId);
  });
  const failures = state.events.flatMap((e) => (e.type === 'HOOK_FAILED' ? [[e.hook, e.hookName, e.error]] : []));
  expect(failures).toEqual([
    ['onAgentStart', 'flaky-observer', 'agent start boom'],
    ['onToolStart', 'flaky-observer', 'start boom'],
    ['onToolEnd', 'flaky-observer', 'end boom'],
  ]);
  // The other hooks on the agent still ran, and the tool ran once.
  expect(log).toEqual([
    'agentStart:broken-observers',
    'approve:work',
    'start:work',
    `execute:x:${turnId}:f1`,
    'end:work:{"done":"x"}',
  ]);
  expect(state.toolCalls[0]?.status).toBe('succeeded');
});

test('an approval hook that throws denies the call (fail closed)', async () => {
  h.model.setScript([
    { toolCalls: [{ id: 'b1', name: 'work', arguments: { task: 'y' } }] },
    { content: 'denied then' },
  ]);
  const turnId = h.turnId('broken-approver');
  const state = await (
    await worker()
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'broken-approver', input: 'go', turnId });
    await h.tiller.result(turnId);
    return h.tiller.state(turnId);
  });
  expect(log.filter((l) => l.startsWith('execute') || l.startsWith('start'))).toEqual([]);
  expect(state.toolCalls[0]).toMatchObject({ status: 'denied', result: 'Tool call denied by user.' });
  expect(state.events.map((e) => e.type)).toEqual(expect.arrayContaining(['HOOK_FAILED', 'TOOL_DENIED']));
  expect(toolMessage(1, 'b1')).toBe('Tool call denied by user.');
});

test('the approval hook can proceed, deny with a reason, or ask a human', async () => {
  h.model.setScript([
    {
      toolCalls: [
        { id: 'h1', name: 'work', arguments: { task: 'ls' } },
        { id: 'h2', name: 'work', arguments: { task: 'rm' } },
        { id: 'h3', name: 'work', arguments: { task: 'deploy' } },
      ],
    },
    { content: 'mixed' },
  ]);
  const turnId = h.turnId('policy-hook');
  await (
    await worker()
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'policy-hook', input: 'go', turnId });
    const paused = await waitForState(h.tiller, turnId, awaitingApproval);
    expect(paused.pendingApprovals.map((p) => p.id)).toEqual(['h3']);
    await h.tiller.approve(turnId, 'h3', { approver: 'ops' });
    await h.tiller.result(turnId);
    await recordFixture(h.client, turnId, 'approval-hook-mixed');
  });
  expect(log.filter((l) => l.startsWith('execute')).sort()).toEqual([
    `execute:deploy:${turnId}:h3`,
    `execute:ls:${turnId}:h1`,
  ]);
  expect(toolMessage(1, 'h2')).toBe('rm is never allowed');
});

test('a throwing tool: the error is folded into the result, TOOL_FAILED fires, on tool end is skipped', async () => {
  h.model.setScript([{ toolCalls: [{ id: 'e1', name: 'explode', arguments: {} }] }, { content: 'it broke' }]);
  const turnId = h.turnId('explode');
  const state = await (
    await worker()
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'ordered', input: 'go', turnId });
    expect((await h.tiller.result(turnId)).status).toBe('completed');
    return h.tiller.state(turnId);
  });
  expect(log).toEqual(['agentStart:ordered', 'approve:explode', 'start:explode', 'execute:explode']);
  expect(state.toolCalls[0]).toMatchObject({ status: 'failed', error: 'explode failed: disk on fire' });
  expect(state.events.map((e) => e.type)).toContain('TOOL_FAILED');
  expect(toolMessage(1, 'e1')).toBe('Error: explode failed: disk on fire');
});

test('invalid arguments and an unknown tool become error results the model sees, not crashes', async () => {
  h.model.setScript([
    {
      toolCalls: [
        { id: 'i1', name: 'work', arguments: { task: 42 } },
        { id: 'i2', name: 'work', arguments: '{"task": "unterminated' },
        { id: 'i3', name: 'teleport', arguments: { to: 'mars' } },
      ],
    },
    { content: 'recovered' },
  ]);
  const turnId = h.turnId('bad-args');
  const state = await (
    await worker()
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'ordered', input: 'go', turnId });
    expect(await h.tiller.result(turnId)).toMatchObject({ status: 'completed', output: 'recovered' });
    return h.tiller.state(turnId);
  });
  expect(log.filter((l) => l.startsWith('execute'))).toEqual([]);
  expect(state.toolCalls.map((c) => [c.id, c.status])).toEqual([
    ['i1', 'failed'],
    ['i2', 'failed'],
    ['i3', 'failed'],
  ]);
  expect(toolMessage(1, 'i1')).toMatch(/^Error: invalid arguments for work: task: /);
  expect(toolMessage(1, 'i2')).toMatch(/^Error: the arguments for work are not valid JSON/);
  expect(toolMessage(1, 'i3')).toBe('Error: unknown tool "teleport". Available tools: work, explode.');
});
