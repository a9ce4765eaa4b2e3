/** Property tests for the pure core: the reducer under any interleaving, the decision contract exactly. */
import fc from 'fast-check';
import type { TurnEventBody } from '../../src/core/state/events';
import { Decision } from '../../src/core/schemas';
import { jsonBytes } from '../../src/core/bounds';
import { budgetedState, createTurnState, emit, stateBytesAtMost } from '../../src/core/state';

type Path = 'succeeded' | 'failed' | 'approved' | 'denied' | 'timed_out' | 'hook_denied';

/** The events one call goes through on a given path, in its own order. */
function lifecycle(id: string, path: Path): TurnEventBody[] {
  const base = { toolCallId: id, tool: 't', args: { id } };
  const decision = (approved: boolean, via: 'update' | 'hook' = 'update') => ({
    id,
    approved,
    scope: 'once' as const,
    at: 'x',
    via,
  });
  const requested: TurnEventBody = { type: 'APPROVAL_REQUESTED', ...base, argsDigest: 'd' };
  const started: TurnEventBody = { type: 'TOOL_STARTED', ...base };
  const ended: TurnEventBody = { type: 'TOOL_ENDED', toolCallId: id, tool: 't', durationMs: 1, result: 'ok' };
  switch (path) {
    case 'succeeded':
      return [started, ended];
    case 'failed':
      return [started, { type: 'TOOL_FAILED', ...base, error: 'boom' }];
    case 'approved':
      return [requested, { type: 'TOOL_APPROVED', ...base, decision: decision(true) }, started, ended];
    case 'denied':
      return [requested, { type: 'TOOL_DENIED', ...base, result: 'no', decision: decision(false) }];
    case 'timed_out':
      return [requested, { type: 'APPROVAL_TIMED_OUT', toolCallId: id, tool: 't', result: 'expired' }];
    case 'hook_denied':
      // The approval hook's denial: recorded with its decision (via "hook"), as the workflow records it.
      return [{ type: 'TOOL_DENIED', ...base, result: 'Tool call denied by user.', decision: decision(false, 'hook') }];
  }
}
const finalStatus: Record<Path, string> = {
  succeeded: 'succeeded',
  failed: 'failed',
  approved: 'succeeded',
  denied: 'denied',
  timed_out: 'timed_out',
  hook_denied: 'denied',
};

const paths = fc.constantFrom<Path>('succeeded', 'failed', 'approved', 'denied', 'timed_out', 'hook_denied');
const usage = fc.record({ inputTokens: fc.nat(10_000), outputTokens: fc.nat(10_000) });

test('the reducer never loses a tool call or double-counts usage, whatever the interleaving', () => {
  fc.assert(
    fc.property(
      fc.array(fc.array(fc.tuple(paths, usage), { minLength: 0, maxLength: 5 }), { minLength: 1, maxLength: 6 }),
      fc.infiniteStream(fc.nat()),
      (batches, choices) => {
        const state = createTurnState({ turnId: 't', agent: 'a' });
        let expectedIn = 0;
        let expectedOut = 0;
        const expected = new Map<string, string>();
        batches.forEach((calls, b) => {
          const u = calls[0]?.[1] ?? { inputTokens: 1, outputTokens: 1 };
          expectedIn += u.inputTokens;
          expectedOut += u.outputTokens;
          const ids = calls.map((_, i) => `c${b}_${i}`);
          emit(
            state,
            {
              type: 'MODEL_CALLED',
              call: b + 1,
              usage: { ...u, totalTokens: u.inputTokens + u.outputTokens },
              durationMs: 1,
              toolCalls: ids.map((id) => ({ id, name: 't', args: { id } })),
            },
            'x',
          );
          // Interleave the calls' lifecycles at random, each call's own order kept.
          const queues = calls.map(([path], i) => {
            expected.set(ids[i]!, finalStatus[path]);
            return lifecycle(ids[i]!, path);
          });
          const it = choices[Symbol.iterator]();
          while (queues.some((q) => q.length)) {
            const open = queues.filter((q) => q.length);
            emit(state, open[(it.next().value as number) % open.length]!.shift()!, 'x');
          }
        });
        expect(state.toolCalls.map((c) => c.id).sort()).toEqual([...expected.keys()].sort());
        for (const call of state.toolCalls) expect(call.status).toBe(expected.get(call.id));
        expect(state.usage).toEqual({
          inputTokens: expectedIn,
          outputTokens: expectedOut,
          totalTokens: expectedIn + expectedOut,
          modelCalls: batches.length,
        });
        expect(state.pendingApprovals).toEqual([]);
        expect(state.status).toBe('running');
        expect(state.events.map((e) => e.seq)).toEqual(state.events.map((_, i) => i + 1));
      },
    ),
    { numRuns: 300 },
  );
});

test('the state size bound never undercounts, so the budgeted state is the one a fresh measure gives', () => {
  const text = fc.string({ maxLength: 400 }).map((s) => s.repeat(3));
  const ending = fc.constantFrom<TurnEventBody | undefined>(
    undefined,
    { type: 'TURN_COMPLETED', output: 'done' },
    { type: 'TURN_FAILED', error: 'a long reason '.repeat(40) },
    { type: 'TURN_CANCELLED' },
  );
  fc.assert(
    fc.property(
      fc.array(fc.array(fc.tuple(paths, text), { maxLength: 5 }), { minLength: 1, maxLength: 8 }),
      fc.array(fc.nat(3), { minLength: 60, maxLength: 60 }),
      fc.integer({ min: 500, max: 40_000 }),
      ending,
      (batches, asks, maxBytes, end) => {
        const state = createTurnState({ turnId: 't', agent: 'a' });
        let n = 0;
        const ask = () => {
          const bound = stateBytesAtMost(state, maxBytes);
          expect(bound).toBeGreaterThanOrEqual(jsonBytes(state));
          if (bound > maxBytes) expect(bound).toBe(jsonBytes(state));
          // A fresh copy has no remembered size: its budgeted view is what the remembered one must be.
          expect(budgetedState(state, maxBytes)).toEqual(budgetedState(structuredClone(state), maxBytes));
        };
        const record = (body: TurnEventBody) => {
          emit(state, body, 'x', 40); // a small ring: events fall out of it between asks
          if (asks[n++ % asks.length] === 0) ask(); // about one event in four
        };
        batches.forEach((calls, b) => {
          const ids = calls.map((_, i) => `c${b}_${i}`);
          const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
          record({
            type: 'MODEL_CALLED',
            call: b + 1,
            usage,
            durationMs: 1,
            toolCalls: ids.map((id, i) => ({ id, name: 't', args: { id, text: calls[i]![1] } })),
          });
          calls.forEach(([path, result], i) => {
            for (const body of lifecycle(ids[i]!, path))
              record(body.type === 'TOOL_ENDED' ? { ...body, result } : body);
          });
          const child = `child-${b}`;
          record({
            type: 'SUBAGENT_STARTED',
            toolCallId: `s${b}`,
            tool: 'ask',
            agent: 'a',
            childTurnId: child,
            inherit: true,
          });
          record({ type: 'SUBAGENT_PROGRESS', childTurnId: child, status: 'awaiting_approval', pendingApprovals: [] });
          record({
            type: 'SUBAGENT_ENDED',
            toolCallId: `s${b}`,
            childTurnId: child,
            status: 'completed',
            usage: { ...usage, modelCalls: 1 },
          });
          record({ type: 'TRUST_GRANTED', tool: `t${b}`, scope: 'turn', approver: 'alice' });
        });
        // Calls left open, then the ending (a failed or cancelled turn rewrites every open call).
        record({
          type: 'APPROVAL_REQUESTED',
          toolCallId: 'open',
          tool: 't',
          args: { x: 'y'.repeat(300) },
          argsDigest: 'd',
        });
        record({ type: 'TOOL_STARTED', toolCallId: 'open2', tool: 't', args: {} });
        if (end) record(end);
        ask();
      },
    ),
    { numRuns: 100 },
  );
});

const KEYS = ['id', 'approved', 'reason', 'scope', 'approver', 'approverGroups', 'argsDigest', 'args'] as const;

/** The contract, written independently of the zod schema. */
function contractAccepts(value: unknown): boolean {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  if (Object.keys(v).some((k) => !(KEYS as readonly string[]).includes(k))) return false;
  if (typeof v.id !== 'string' || v.id.length === 0) return false;
  if (typeof v.approved !== 'boolean') return false;
  if ('reason' in v && !(typeof v.reason === 'string' && v.reason.length <= 2000)) return false;
  if ('scope' in v && !['once', 'turn', 'session'].includes(v.scope as string)) return false;
  if ('approver' in v && !(typeof v.approver === 'string' && v.approver.length <= 200)) return false;
  if ('argsDigest' in v && !(typeof v.argsDigest === 'string' && v.argsDigest.length <= 200)) return false;
  if (
    'approverGroups' in v &&
    !(
      Array.isArray(v.approverGroups) &&
      v.approverGroups.length <= 50 &&
      v.approverGroups.every((g) => typeof g === 'string' && g.length <= 200)
    )
  )
    return false;
  if ('args' in v && !(v.args !== null && typeof v.args === 'object' && !Array.isArray(v.args))) return false;
  return true;
}

const anything = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.boolean(),
  fc.integer(),
  fc.constant(null),
  fc.constantFrom('once', 'turn', 'session', 'forever', ''),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
);
const decisionLike = fc.record(
  {
    id: fc.oneof(fc.string({ maxLength: 5 }), anything),
    approved: fc.oneof(fc.boolean(), anything),
    reason: fc.oneof(fc.string({ maxLength: 5 }), fc.constant('r'.repeat(2001)), anything),
    scope: fc.oneof(fc.constantFrom('once', 'turn', 'session'), anything),
    approver: fc.oneof(fc.string({ maxLength: 5 }), fc.constant('a'.repeat(201)), anything),
    approverGroups: fc.oneof(fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }), anything),
    argsDigest: fc.oneof(fc.string({ maxLength: 8 }), anything),
    args: fc.oneof(fc.dictionary(fc.string({ maxLength: 3 }), anything, { maxKeys: 3 }), anything),
    extra: anything,
  },
  { requiredKeys: [] },
);

const validDecision = fc.record(
  {
    id: fc.string({ minLength: 1, maxLength: 8 }),
    approved: fc.boolean(),
    reason: fc.string({ maxLength: 20 }),
    scope: fc.constantFrom('once', 'turn', 'session'),
    approver: fc.string({ maxLength: 10 }),
    approverGroups: fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
    argsDigest: fc.string({ maxLength: 20 }),
    args: fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue(), { maxKeys: 3 }),
  },
  { requiredKeys: ['id', 'approved'] },
);
/** A valid decision with one field replaced or one key added: the boundary cases. */
const nearlyValid = fc
  .tuple(validDecision, fc.constantFrom(...KEYS, 'extra'), anything)
  .map(([d, key, value]) => ({ ...d, [key]: value }));

test('the decision schema accepts exactly the decisions the contract allows', () => {
  let accepted = 0;
  fc.assert(
    fc.property(fc.oneof(validDecision, nearlyValid, decisionLike, anything), (value) => {
      const ok = Decision.safeParse(value).success;
      if (ok) accepted++;
      expect(ok).toBe(contractAccepts(value));
    }),
    { numRuns: 2_000 },
  );
  // Both sides of the contract were exercised, not only rejections.
  expect(accepted).toBeGreaterThan(200);
});
