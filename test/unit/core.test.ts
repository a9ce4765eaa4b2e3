/** The pure core: reducer, policy, digest, decision checks. No server. */
import { createHash } from 'node:crypto';
import { describeApprovers, mayDecide } from '../../src/core/approvers';
import { argsDigest, canonicalJson, sha256Hex } from '../../src/core/digest';
import {
  approvalGate,
  combineOutcomes,
  deniedResult,
  Deny,
  DENIED_WITHOUT_REASON,
  Proceed,
  Ask,
  toOutcome,
} from '../../src/core/policy';
import { createTurnState, emit, eventsSince } from '../../src/core/state';
import { Decision } from '../../src/core/schemas';
import type { AgentSpec } from '../../src/core/spec';

const at = '2026-12-02T10:00:00.000Z';

function spec(overrides: Partial<AgentSpec> = {}): AgentSpec {
  return {
    name: 'a',
    instructions: '',
    model: 'm',
    tools: [],
    gates: {},
    hooks: { approveTool: false, onAgentStart: false, onToolStart: false, onToolEnd: false },
    maxModelCalls: 5,
    stream: true,
    searchAttributes: false,
    ...overrides,
  };
}

describe('digest', () => {
  test.each(['', 'abc', 'héllo wörld 🚀', 'x'.repeat(1000), 'a'.repeat(55), 'a'.repeat(56), 'a'.repeat(64)])(
    'sha256 matches node:crypto for %#',
    (text) => {
      expect(sha256Hex(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
    },
  );
  test('canonical JSON ignores key order and undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[1,{"y":2,"z":1}]},"b":1}',
    );
    expect(argsDigest('t', { x: 1, y: 2 })).toBe(argsDigest('t', { y: 2, x: 1 }));
    expect(argsDigest('t', { x: 1 })).not.toBe(argsDigest('u', { x: 1 }));
    expect(argsDigest('t', { x: 1 })).not.toBe(argsDigest('t', { x: 2 }));
  });
  test('a salted digest depends on the salt; without one it is the digest of {tool, args} (older turns)', () => {
    expect(argsDigest('t', { x: 1 })).toBe(`sha256:${sha256Hex('{"args":{"x":1},"tool":"t"}')}`);
    expect(argsDigest('t', { x: 1 }, 'run-a')).toBe(argsDigest('t', { x: 1 }, 'run-a'));
    expect(argsDigest('t', { x: 1 }, 'run-a')).not.toBe(argsDigest('t', { x: 1 }, 'run-b'));
    expect(argsDigest('t', { x: 1 }, 'run-a')).not.toBe(argsDigest('t', { x: 1 }));
  });
});

describe('approver rules', () => {
  test('absent approvers: anyone; an empty list: nobody; else names or groups', () => {
    expect(mayDecide(undefined, 'x')).toBe(true);
    expect(mayDecide(undefined)).toBe(true);
    expect(mayDecide([], 'x', ['g'])).toBe(false);
    expect(mayDecide([])).toBe(false);
    expect(mayDecide(['x'], 'x')).toBe(true);
    expect(mayDecide(['group:g'], 'y', ['g'])).toBe(true);
    expect(mayDecide(['x', 'group:g'], 'y', ['h'])).toBe(false);
    expect(describeApprovers([])).toBe('nobody');
    expect(describeApprovers(['x', 'group:g'])).toBe('x, group:g');
  });
});

describe('policy', () => {
  test('gated tools ask, trusted ones proceed, never-trust ignores trust, hooks decide the rest', () => {
    const s = spec({ gates: { rm: {}, nuke: { neverTrust: true } } });
    expect(approvalGate(s, 'ls', [])).toEqual({ type: 'proceed', via: 'policy' });
    expect(approvalGate(s, 'rm', [])).toEqual({ type: 'ask', gate: {} });
    expect(approvalGate(s, 'rm', [{ tool: 'rm', scope: 'turn' }])).toMatchObject({ type: 'proceed', via: 'trust' });
    expect(approvalGate(s, 'nuke', [{ tool: 'nuke', scope: 'session' }])).toEqual({
      type: 'ask',
      gate: { neverTrust: true },
    });
    const withHook = spec({ hooks: { ...s.hooks, approveTool: true } });
    expect(approvalGate(withHook, 'ls', [])).toEqual({ type: 'hook' });
  });
  test('outcomes: deny beats ask beats proceed; hook return values are normalised or rejected', () => {
    expect(combineOutcomes([Proceed, Ask, Deny('no')])).toEqual({ action: 'deny', reason: 'no' });
    expect(combineOutcomes([Proceed, Ask])).toEqual(Ask);
    expect(combineOutcomes([])).toEqual(Proceed);
    expect(toOutcome(true)).toEqual(Proceed);
    expect(toOutcome(false)).toEqual({ action: 'deny' });
    expect(() => toOutcome('yes')).toThrow(/expected Proceed, Deny/);
  });
  test('denial text: the literal without a reason, the reason otherwise', () => {
    expect(deniedResult()).toBe('Tool call denied by user.');
    expect(deniedResult('   ')).toBe(DENIED_WITHOUT_REASON);
    expect(deniedResult('too risky')).toBe('too risky');
  });
});

describe('reducer', () => {
  test('folds a gated call through approval, run and completion', () => {
    const s = createTurnState({ turnId: 't', agent: 'a' });
    emit(s, { type: 'AGENT_STARTED', agent: 'a', input: 'hi', model: 'm', tools: ['rm'] }, at);
    emit(
      s,
      {
        type: 'MODEL_CALLED',
        call: 1,
        usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 },
        durationMs: 5,
        toolCalls: [{ id: 'c1', name: 'rm', args: { p: 1 } }],
      },
      at,
    );
    expect(s.toolCalls).toEqual([{ id: 'c1', name: 'rm', args: { p: 1 }, status: 'running' }]);
    emit(s, { type: 'APPROVAL_REQUESTED', toolCallId: 'c1', tool: 'rm', args: { p: 1 }, argsDigest: 'd' }, at);
    expect(s.status).toBe('awaiting_approval');
    expect(s.pendingApprovals).toEqual([{ id: 'c1', tool: 'rm', args: { p: 1 }, argsDigest: 'd', requestedAt: at }]);
    const decision = { id: 'c1', approved: true, scope: 'turn' as const, at, via: 'update' as const, approver: 'x' };
    emit(s, { type: 'TOOL_APPROVED', toolCallId: 'c1', tool: 'rm', args: { p: 1 }, decision }, at);
    emit(s, { type: 'TRUST_GRANTED', tool: 'rm', scope: 'turn', approver: 'x' }, at);
    emit(s, { type: 'TRUST_GRANTED', tool: 'rm', scope: 'turn', approver: 'x' }, at);
    expect(s.status).toBe('running');
    expect(s.pendingApprovals).toEqual([]);
    expect(s.trust).toHaveLength(1);
    emit(s, { type: 'TOOL_STARTED', toolCallId: 'c1', tool: 'rm', args: { p: 1 } }, at);
    emit(s, { type: 'TOOL_ENDED', toolCallId: 'c1', tool: 'rm', durationMs: 3, result: 'ok' }, at);
    emit(s, { type: 'TURN_COMPLETED', output: 'bye' }, at);
    expect(s.toolCalls[0]).toMatchObject({
      status: 'succeeded',
      durationMs: 3,
      result: 'ok',
      decision: { approver: 'x' },
    });
    expect(s.status).toBe('completed');
    expect(s.usage).toEqual({ inputTokens: 10, outputTokens: 2, totalTokens: 12, modelCalls: 1 });
    expect(s.events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(eventsSince(s, 7).map((e) => e.type)).toEqual(['TOOL_ENDED', 'TURN_COMPLETED']);
  });
  test('the event ring is bounded while seq stays monotonic', () => {
    const s = createTurnState({ turnId: 't', agent: 'a' });
    for (let i = 0; i < 30; i++) emit(s, { type: 'HOOK_FAILED', hook: 'onToolEnd', error: String(i) }, at, 10);
    expect(s.events).toHaveLength(10);
    expect(s.events[0]?.seq).toBe(21);
    expect(s.eventCount).toBe(30);
  });
  test('a failed turn leaves no call in progress', () => {
    const s = createTurnState({ turnId: 't', agent: 'a' });
    emit(s, { type: 'APPROVAL_REQUESTED', toolCallId: 'c', tool: 'rm', args: {}, argsDigest: 'd' }, at);
    emit(s, { type: 'TURN_FAILED', error: 'boom' }, at);
    expect(s.pendingApprovals).toEqual([]);
    expect(s.toolCalls[0]).toMatchObject({ status: 'failed', error: expect.stringContaining('boom') });
  });
});

describe('decision schema', () => {
  test('accepts the documented shape and rejects the rest', () => {
    expect(Decision.safeParse({ id: 'c', approved: true, scope: 'turn', approver: 'x', reason: 'r' }).success).toBe(
      true,
    );
    expect(Decision.safeParse({ id: 'c', approved: 'yes' }).success).toBe(false);
    expect(Decision.safeParse({ id: '', approved: true }).success).toBe(false);
    expect(Decision.safeParse({ id: 'c', approved: true, scope: 'forever' }).success).toBe(false);
    expect(Decision.safeParse({ id: 'c', approved: true, extra: 1 }).success).toBe(false);
  });
});
