/**
 * Issue 36: a gated call's arguments checked by the model call that asked for it (src/activities/arg-checks.ts).
 * The checks are recorded in history with the model's response, so they are bounded whatever the model
 * sent: only the named tools' calls, only the first 32 calls of a response, errors clipped; and a schema
 * the activity cannot check (an async refinement) leaves the call to the preview activity.
 */
import { z } from 'zod';
import { argChecksOf, checkWorkerArgs } from '../../src/activities/arg-checks';
import { BOUNDS } from '../../src/core/bounds';
import { defineTool, type ToolDefinition } from '../../src/tools/define';
import { argCheckOf } from '../../src/workflows/tool-call/args';

const poke = defineTool({
  name: 'poke',
  description: 'poke',
  input: z.object({ n: z.number(), note: z.string().max(10).optional() }),
  execute: () => 'ok',
});
const later = defineTool({
  name: 'later',
  description: 'checked only asynchronously',
  input: z.object({ n: z.number() }).refine(async () => true),
  execute: () => 'ok',
});
const tools = new Map<string, ToolDefinition>([
  ['poke', poke as ToolDefinition],
  ['later', later as ToolDefinition],
]);
const call = (name: string, args: string, i = 0) => ({
  id: `c${i}`,
  type: 'function' as const,
  function: { name, arguments: args },
});
const message = (calls: ReturnType<typeof call>[]) => ({
  role: 'assistant' as const,
  content: null,
  tool_calls: calls,
});

test('only the calls of the tools the request names are checked, in the order of the calls', () => {
  const checks = argChecksOf(
    { checkArgs: ['poke'] },
    message([call('poke', '{"n":1}'), call('other', '{}'), call('poke', '{"n":"x"}')]),
    tools,
  );
  expect(checks).toEqual([
    { ok: true },
    null,
    { ok: false, error: expect.stringMatching(/^invalid arguments for poke: n: /) },
  ]);
  expect(argChecksOf({}, message([call('poke', '{"n":1}')]), tools)).toBeUndefined();
  expect(argChecksOf({ checkArgs: ['other'] }, message([call('other', '{}')]), tools)).toBeUndefined();
});

test('the preview activity’s words: JSON first, then the schema', () => {
  expect(checkWorkerArgs(poke as ToolDefinition, 'poke', '{"n":')).toEqual({
    ok: false,
    error: expect.stringMatching(/^the arguments for poke are not valid JSON \(/),
  });
  expect(checkWorkerArgs(poke as ToolDefinition, 'poke', '')).toEqual({
    ok: false,
    error: expect.stringMatching(/^invalid arguments for poke: n: /),
  });
  expect(checkWorkerArgs(undefined, 'nope', '{}')).toBeUndefined();
});

test('hostile responses: hundreds of calls, deep nesting, huge strings are bounded', () => {
  const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
  const huge = JSON.stringify({ n: 1, note: 'x'.repeat(1_000_000), [`k${'y'.repeat(100_000)}`]: 1 });
  const calls = Array.from({ length: 300 }, (_, i) => call('poke', i % 2 ? deep : huge, i));
  const checks = argChecksOf({ checkArgs: ['poke'] }, message(calls), tools)!;
  expect(checks).toHaveLength(300);
  expect(checks.slice(BOUNDS.callsPerResponse).every((c) => c === null)).toBe(true);
  for (const c of checks.slice(0, BOUNDS.callsPerResponse)) {
    expect(c).toMatchObject({ ok: false });
    expect((c as { error: string }).error.length).toBeLessThanOrEqual(BOUNDS.text);
  }
  expect(checks[1]).toEqual({ ok: false, error: expect.stringContaining('nested deeper than 64 levels') });
});

test('a schema the activity cannot check here is left to the preview activity', () => {
  expect(checkWorkerArgs(later as ToolDefinition, 'later', '{"n":1}')).toBeUndefined();
  expect(argChecksOf({ checkArgs: ['later'] }, message([call('later', '{"n":1}')]), tools)).toBeUndefined();
});

test('the workflow takes a check only in its shape; anything else leaves the call to the preview', () => {
  expect(argCheckOf({ ok: true, extra: 1 })).toEqual({ ok: true });
  expect(argCheckOf({ ok: false, error: 'e'.repeat(10_000) })).toEqual({ ok: false, error: 'e'.repeat(BOUNDS.text) });
  for (const odd of [null, undefined, 'ok', { ok: false }, { ok: 'true' }, [], { ok: false, error: 1 }]) {
    expect(argCheckOf(odd)).toBeUndefined();
  }
});
