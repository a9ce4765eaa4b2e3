/** Sub-agents, the pure part: declaration checks, child turn ids, inherited policy, and the state fold. */
import { defineAgent } from '../../src/agents/define';
import { createTurnState, emit } from '../../src/core/state';
import { inheritPolicy, subAgentToolSpec, subAgentTurnId } from '../../src/core/subagents';
import type { AgentSpec } from '../../src/core/spec';

const spec = (over: Partial<AgentSpec>): AgentSpec => ({
  name: 'x',
  instructions: '',
  model: 'm',
  tools: [],
  gates: {},
  hooks: { approveTool: false, onAgentStart: false, onToolStart: false, onToolEnd: false, onApprovalPending: false },
  maxModelCalls: 20,
  stream: true,
  searchAttributes: true,
  ...over,
});
const tool = (name: string) => ({ name, description: name, parameters: {} });

test('defineAgent checks sub-agent names and lets approvals gate a sub-agent tool', () => {
  const sub = { agent: 'researcher', description: 'd' };
  expect(() =>
    defineAgent({ name: 'a', instructions: '', tools: ['read_file'], subAgents: { 'bad name': sub } }),
  ).toThrow(/sub-agent tool name "bad name"/);
  expect(() =>
    defineAgent({ name: 'a', instructions: '', tools: ['read_file'], subAgents: { read_file: sub } }),
  ).toThrow(/has the name of one of its tools/);
  expect(
    defineAgent({ name: 'a', instructions: '', tools: [], subAgents: { research: sub }, approvals: { research: true } })
      .approvals,
  ).toEqual({ research: true });
});

test('the child turn id derives from the parent turn and the tool call, safe for URLs and shells', () => {
  expect(subAgentTurnId('turn-1', 'call_7')).toBe('turn-1.sub.call_7');
  expect(subAgentTurnId('turn-1', 'c1#2')).toBe('turn-1.sub.c1_2');
  expect(subAgentToolSpec('research', { agent: 'researcher', description: 'd' })).toMatchObject({
    name: 'research',
    parameters: { required: ['input'] },
    subAgent: { agent: 'researcher', inherit: false },
  });
});

test('inheritPolicy adds ancestors gates for tools the child has (own and nearest first) and their hooks', () => {
  const own = spec({
    name: 'child',
    tools: [tool('read'), tool('delete'), tool('send')],
    gates: { send: { timeout: '1 hour' } },
  });
  const parent = spec({
    name: 'parent',
    gates: { delete: { approvers: ['alice'] }, send: { approvers: ['bob'] }, other: {} },
    hooks: { ...own.hooks, onToolEnd: true },
  });
  const grandparent = spec({ name: 'root', gates: { delete: { approvers: ['root'] }, read: {} } });
  const merged = inheritPolicy(own, [parent, grandparent]);
  expect(merged.gates).toEqual({ send: { timeout: '1 hour' }, delete: { approvers: ['alice'] }, read: {} });
  expect(merged.hooks.onToolEnd).toBe(true);
  expect(merged.hooks.approveTool).toBe(false);
  expect(merged.inherits).toEqual(['parent', 'root']);
  expect(inheritPolicy(own, [])).toBe(own);
});

test('the state shows a child as it progresses, adds its usage once when it ends, and ignores late progress', () => {
  const state = createTurnState({ turnId: 't', agent: 'parent' });
  const at = '2025-01-01T00:00:00.000Z';
  emit(
    state,
    { type: 'SUBAGENT_STARTED', toolCallId: 'p1', tool: 'research', agent: 'r', childTurnId: 'c', inherit: true },
    at,
  );
  const pending = [{ id: 'r1', tool: 'delete', args: {}, argsDigest: 'd', requestedAt: at }];
  emit(
    state,
    { type: 'SUBAGENT_PROGRESS', childTurnId: 'c', status: 'awaiting_approval', pendingApprovals: pending },
    at,
  );
  expect(state.children?.c).toMatchObject({ status: 'awaiting_approval', pendingApprovals: pending });
  expect(state.status).toBe('running'); // the parent itself waits for nobody
  const usage = { inputTokens: 3, outputTokens: 2, totalTokens: 5, modelCalls: 1 };
  emit(state, { type: 'SUBAGENT_ENDED', toolCallId: 'p1', childTurnId: 'c', status: 'completed', usage }, at);
  emit(state, { type: 'SUBAGENT_PROGRESS', childTurnId: 'c', status: 'running', pendingApprovals: pending }, at);
  expect(state.children?.c).toMatchObject({ status: 'completed', pendingApprovals: [], usage, endedAt: at });
  expect(state.usage).toEqual(usage);
});
