/**
 * Tiller's schemas are preloaded (src/workflows/preload.ts): every turn in a worker shares one frozen
 * copy. zod writes to a schema on its first reads and parses, so the preload settles each schema
 * before the SDK freezes it. Here the schemas are frozen the way the SDK freezes shared modules, then
 * parsed with valid and hostile inputs: a write zod still makes would throw a TypeError.
 */
import { z } from 'zod';
import { schemas } from '../../src/workflows/preload';

/** As the SDK's reusable context freezes preloaded modules: own properties read (getters run), then frozen. */
function freezeLikeTheSdk(value: unknown, seen = new WeakSet<object>()): void {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value)) return;
  seen.add(value);
  if (Object.isFrozen(value)) return;
  if (typeof value === 'object') {
    for (const key of Reflect.ownKeys(value)) {
      try {
        freezeLikeTheSdk((value as Record<PropertyKey, unknown>)[key], seen);
      } catch {
        // as the SDK: some objects cannot be frozen
      }
    }
  }
  Object.freeze(value);
}

const exported: [string, z.ZodType][] = Object.entries(schemas as Record<string, unknown>).flatMap(([name, value]) =>
  value instanceof z.ZodType ? [[name, value] as [string, z.ZodType]] : [],
);

const hostile: unknown[] = [
  undefined,
  null,
  0,
  -1,
  Number.NaN,
  '',
  'x'.repeat(5_000),
  true,
  [],
  [1, 'a', null],
  {},
  { id: '', approved: 'yes', extra: 1 },
  { agent: 1, input: [], trust: [{ tool: '', scope: 'forever' }] },
  { turnId: 'x', status: 'running', pendingApprovals: [{ id: 1 }], usage: { inputTokens: -1 } },
  { args: JSON.parse('{"a":'.repeat(40) + '1' + '}'.repeat(40)) as unknown, id: 'c', approved: true },
  Object.create(null) as unknown,
];

const valid: Record<string, unknown> = {
  TurnInput: {
    agent: 'a',
    input: 'hi',
    trust: [{ tool: 't', scope: 'turn' }],
    history: [{ role: 'user', content: 'x' }],
    parent: { turnId: 'p', toolCallId: 'c', agent: 'b' },
  },
  Decision: { id: 'call-1', approved: true, scope: 'session', args: { a: { b: [1] } }, approverGroups: ['ops'] },
  TurnProgressCheck: {
    turnId: 't',
    status: 'awaiting_approval',
    pendingApprovals: [{ id: 'c', tool: 'x', more: 1 }],
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2, modelCalls: 1 },
  },
  SubAgentArgs: { input: 'do it' },
  SessionInput: { agent: 'a', owner: { name: 'ann', groups: ['ops'] }, tokenBudget: 10 },
  SendInput: { input: 'hi', principal: { name: 'ann' } },
  RevokeTrustInput: { tool: 't', scope: 'turn' },
  TurnResult: {
    output: 'done',
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2, modelCalls: 1 },
    toolCalls: [],
    status: 'completed',
    trust: [],
  },
};

beforeAll(() => {
  for (const [, schema] of exported) freezeLikeTheSdk(schema);
});

test('the preloaded schemas are the frozen ones', () => {
  expect(exported.length).toBeGreaterThan(10);
  for (const [name, schema] of exported) expect([name, Object.isFrozen(schema)]).toEqual([name, true]);
});

test('frozen, each parses valid inputs twice (first and later parses)', () => {
  for (const [name, sample] of Object.entries(valid)) {
    const schema = (schemas as Record<string, unknown>)[name] as z.ZodType;
    for (let i = 0; i < 2; i++) expect([name, schema.safeParse(sample).success]).toEqual([name, true]);
  }
});

test('frozen, each refuses hostile inputs with a bounded message, not a TypeError', () => {
  const typeErrors: string[] = [];
  for (const [name, schema] of exported) {
    for (const input of hostile) {
      const result = schema.safeParse(input);
      if (!result.success) expect(schemas.formatZodError(result.error).length).toBeLessThanOrEqual(1_000);
      try {
        schema.parse(input);
      } catch (err) {
        if (err instanceof TypeError) typeErrors.push(`${name}: ${err.message}`);
      }
    }
  }
  expect(typeErrors).toEqual([]);
});

test('a schema frozen without the preload settling it throws on its first parse (what the preload prevents)', () => {
  const unsettled = z.object({ id: z.string(), items: z.array(z.number()).optional() });
  freezeLikeTheSdk(unsettled);
  expect(() => unsettled.safeParse({ id: 'x' })).toThrow(TypeError);
});
