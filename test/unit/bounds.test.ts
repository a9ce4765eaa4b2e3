/** The bounds on what a turn keeps (src/core/bounds.ts): iterative, marked, and within budget for any input. */
import {
  boundEvent,
  boundJson,
  BOUNDS,
  clip,
  deeperThan,
  jsonBytes,
  keepReceipts,
  wellFormed,
} from '../../src/core/bounds';
import { FailureType, rejection } from '../../src/core/failures';
import { parseToolArgs } from '../../src/core/args';
import { CallIds } from '../../src/core/call-ids';
import { Decision } from '../../src/core/schemas';
import { budgetedState, createTurnState, emit } from '../../src/core/state';

const nested = (depth: number): unknown => {
  let v: unknown = [];
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};

test('clip keeps short text and marks what it cut', () => {
  expect(clip('short', 10)).toBe('short');
  const cut = clip('x'.repeat(10_000), 100);
  expect(cut.length).toBe(100);
  expect(cut).toContain('[clipped by Tiller: 10000 characters]');
});

test('depth checks and bounded copies walk 200,000 levels without recursion', () => {
  const deep = nested(200_000);
  expect(deeperThan(deep, BOUNDS.jsonDepth)).toBe(true);
  expect(deeperThan(nested(BOUNDS.jsonDepth - 1), BOUNDS.jsonDepth)).toBe(false); // jsonDepth arrays in all
  const bounded = boundJson(deep);
  expect(() => JSON.stringify(bounded)).not.toThrow();
  expect(JSON.stringify(bounded)).toContain('[…]');
});

test('bounded JSON: long strings, wide objects and huge arrays are cut with markers', () => {
  const wide = Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`k${i}`, 'v'.repeat(5_000)]));
  const bounded = boundJson({ wide, list: Array.from({ length: 10_000 }, (_, i) => i) }) as Record<string, any>;
  expect(Object.keys(bounded.wide)).toHaveLength(BOUNDS.jsonEntries + 1);
  expect(bounded.wide['…']).toBe('[900 more]');
  expect(bounded.list).toHaveLength(BOUNDS.jsonEntries + 1);
  expect(jsonBytes(bounded)).toBeLessThan(300_000);
});

test('the model arguments parser refuses JSON nested past the bound, with a reason', () => {
  expect(parseToolArgs('['.repeat(20_000) + ']'.repeat(20_000))).toEqual({
    type: 'invalid',
    error: `nested deeper than ${BOUNDS.jsonDepth} levels`,
  });
  expect(parseToolArgs('{"a":[[1]]}')).toEqual({ type: 'valid', value: { a: [[1]] } });
});

test('decisions: ids are bounded and edited args may not nest past the bound', () => {
  expect(Decision.safeParse({ id: 'x'.repeat(1_000_000), approved: false }).success).toBe(false);
  expect(Decision.safeParse({ id: 'a', approved: true, args: { deep: nested(10_000) } }).success).toBe(false);
  expect(Decision.safeParse({ id: 'a', approved: true, args: { path: 'x' } }).success).toBe(true);
});

test('call ids past the bound are shortened, distinct, and stable', () => {
  const ids = new CallIds();
  const a = ids.unique('a'.repeat(300_000));
  const b = ids.unique('a'.repeat(299_999) + 'b');
  expect(a.length).toBeLessThanOrEqual(64);
  expect(b).not.toBe(a);
  expect(new CallIds().unique('a'.repeat(300_000))).toBe(a);
  expect(ids.unique('call_1')).toBe('call_1');
});

test('every string of an event is clipped by what it holds; the shape stays', () => {
  const huge = 'z'.repeat(1_000_000);
  const event = boundEvent({
    type: 'DECISION_REJECTED' as const,
    via: 'signal' as const,
    reason: huge,
    id: huge,
    approver: huge,
  });
  expect(event.type).toBe('DECISION_REJECTED');
  expect(event.id!.length).toBe(BOUNDS.name);
  expect(event.approver!.length).toBe(BOUNDS.name);
  expect(event.reason.length).toBe(BOUNDS.text);
  const called = boundEvent({ type: 'TOOL_ENDED' as const, toolCallId: 'c', tool: 't', durationMs: 1, result: huge });
  expect(called.result.length).toBe(BOUNDS.long);
});

test('the state query stays under its byte budget whatever was recorded', () => {
  const state = createTurnState({ turnId: 't', agent: 'a' });
  for (let i = 0; i < 60; i++) {
    const id = `c${i}`;
    emit(state, { type: 'TOOL_STARTED', toolCallId: id, tool: 'read', args: { path: 'p'.repeat(2_000) } }, 'now');
    emit(
      state,
      { type: 'TOOL_ENDED', toolCallId: id, tool: 'read', durationMs: 1, result: 'r'.repeat(100_000) },
      'now',
    );
  }
  expect(jsonBytes(state)).toBeGreaterThan(BOUNDS.stateBytes);
  const view = budgetedState(state);
  expect(jsonBytes(view)).toBeLessThanOrEqual(BOUNDS.stateBytes);
  expect(view.toolCalls).toHaveLength(60);
  expect(view.eventCount).toBe(120);
  // A state within budget is answered as it is.
  const small = createTurnState({ turnId: 't', agent: 'a' });
  expect(budgetedState(small)).toBe(small);
});

test('hook receipts are bounded: malformed, oversized and too deep ones are dropped, the newest receiptsPerCall kept', () => {
  const ok = (n: number) => ({ hook: 'chat', value: { ts: `${n}` } });
  // Not an array, or entries that are not receipts: nothing is added.
  expect(keepReceipts(undefined, 'junk')).toEqual([]);
  expect(keepReceipts(undefined, { value: 1 })).toEqual([]);
  expect(
    keepReceipts(undefined, [
      null,
      7,
      { hook: 'chat' },
      { hook: 3, value: 1 },
      { hook: 'h'.repeat(BOUNDS.name + 1), value: 1 },
      { hook: 'chat', value: 'x'.repeat(BOUNDS.receiptChars) },
      { hook: 'chat', value: nested(BOUNDS.jsonDepth + 1) },
      { hook: 'chat', value: () => 1 },
    ]),
  ).toEqual([]);
  // At the limits: kept.
  const big = { hook: 'chat', value: 'x'.repeat(BOUNDS.receiptChars - 2) };
  expect(keepReceipts(undefined, [big, { value: null }])).toEqual([big, { value: null }]);
  // Many at once, and many over time: only the newest receiptsPerCall.
  const many = Array.from({ length: 1_000 }, (_, i) => ok(i));
  const kept = keepReceipts([ok(-1)], many);
  expect(kept).toHaveLength(BOUNDS.receiptsPerCall);
  expect(kept.at(-1)).toEqual(ok(999));
  expect(kept[0]).toEqual(ok(1_000 - BOUNDS.receiptsPerCall));
  let running: ReturnType<typeof keepReceipts> = [];
  for (let i = 0; i < 50; i++) running = keepReceipts(running, [ok(i)]);
  expect(running.map((r) => (r.value as { ts: string }).ts)).toEqual(
    Array.from({ length: BOUNDS.receiptsPerCall }, (_, i) => `${50 - BOUNDS.receiptsPerCall + i}`),
  );
});

test('a __proto__ key in model arguments stays an own key of the bounded copies (shown, not a prototype change)', () => {
  const args = JSON.parse('{"path":"a","__proto__":{"path":"/etc/passwd","admin":true}}') as Record<string, unknown>;
  const shown = boundJson(args) as Record<string, unknown>;
  expect(Object.getPrototypeOf(shown)).toBe(Object.prototype);
  expect(JSON.parse(JSON.stringify(shown))).toEqual(JSON.parse(JSON.stringify(args)));
  expect(JSON.stringify(shown)).toContain('/etc/passwd');
  const event = boundEvent({ type: 'TOOL_STARTED', meta: JSON.parse('{"__proto__":{"x":1}}') });
  expect(JSON.stringify(event)).toBe('{"type":"TOOL_STARTED","meta":{"__proto__":{"x":1}}}');
  expect(({} as Record<string, unknown>).admin).toBeUndefined();
});

test('a rejection is well-formed UTF-16 even when clipped between the halves of a pair or quoting a lone surrogate', () => {
  // Found by the CI fuzz (seed 201831887, decide/flood-updates): a rejection message with a lone surrogate made
  // the core refuse the workflow completion ("Cannot decode Completion … InvalidString"), which stopped the worker.
  const utf8Safe = (s: string) => Buffer.from(s, 'utf8').toString('utf8') === s;
  for (const text of ['💀'.repeat(BOUNDS.text), `a${'💀'.repeat(BOUNDS.text)}`, 'id \udfff and \ud83d alone']) {
    const { message } = rejection(FailureType.DecisionRejected, text);
    expect(utf8Safe(message)).toBe(true);
  }
  expect(wellFormed('a\udfffb\ud83d')).toBe('a\ufffdb\ufffd');
  expect(wellFormed('💀 stays')).toBe('💀 stays');
});
