/**
 * Input and output guardrails with tripwires (`defineAgent({ inputGuardrails, outputGuardrails })`): a
 * tripped guardrail ends the turn `GuardrailTripped` with its bounded output; blocking ones run before
 * the model sees anything, parallel ones beside the first call (no tool runs before they pass); one
 * that throws or hangs fails closed.
 */
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { defineTool } from '../../src/tools/define';
import { runToEnd, scriptByInput, useHarness } from '../support/harness';

const h = useHarness();

const ran: string[] = [];
const act = defineTool({
  name: 'act',
  description: 'acts',
  input: z.object({}),
  execute: () => {
    ran.push('act');
    return 'done';
  },
});
const noSecrets = {
  name: 'no_secrets',
  run: ({ input }: { input: string }) => ({ tripwire: /password/i.test(input), info: { matched: 'password' } }),
};
const agents = [
  defineAgent({ name: 'blocking', instructions: 'x', tools: ['act'], inputGuardrails: [noSecrets] }),
  defineAgent({
    name: 'parallel',
    instructions: 'x',
    tools: ['act'],
    inputGuardrails: [{ ...noSecrets, mode: 'parallel' }],
  }),
  defineAgent({
    name: 'broken',
    instructions: 'x',
    tools: [],
    inputGuardrails: [
      {
        name: 'throws',
        run: () => {
          throw new Error('checker down');
        },
      },
    ],
  }),
  defineAgent({
    name: 'hangs',
    instructions: 'x',
    tools: [],
    inputGuardrails: [{ name: 'slow', timeout: '200 ms', run: () => new Promise<never>(() => undefined) }],
  }),
  defineAgent({
    name: 'huge',
    instructions: 'x',
    tools: [],
    inputGuardrails: [{ name: 'big', run: () => ({ tripwire: true, info: { blob: 'x'.repeat(1_000_000) } }) }],
  }),
  defineAgent({
    name: 'answers',
    instructions: 'x',
    tools: [],
    outputGuardrails: [
      { name: 'no_pii', run: ({ output }) => ({ tripwire: /\d{3}-\d{2}-\d{4}/.test(output?.text ?? '') }) },
    ],
  }),
];
const withWorker = <T>(fn: () => Promise<T>) => h.withWorker(fn, { agents, tools: [act] });

/** Runs a turn to its end: its result, and the failure's type when it failed. */
const run = (agent: string, input: string, fixture?: string) => runToEnd(h, agent, input, fixture);

test('a blocking input guardrail trips before the model is called: GuardrailTripped, with what it said', async () => {
  h.model.setScript(scriptByInput({}));
  await withWorker(async () => {
    const t = await run('blocking', 'my password is hunter2', 'guardrail-tripped-blocking');
    expect(t.type).toBe('GuardrailTripped');
    expect(t.message).toMatch(/input guardrail no_secrets tripped/);
    expect(t.result?.guardrail).toEqual({ name: 'no_secrets', kind: 'input', info: { matched: 'password' } });
    expect(t.state.events.map((e) => e.type)).toEqual(['AGENT_STARTED', 'GUARDRAIL_RAN', 'TURN_FAILED']);
    expect(t.state.guardrails).toMatchObject([{ name: 'no_secrets', kind: 'input', tripped: true }]);
  });
  expect(h.model.requests).toHaveLength(0);
});

test('a passing guardrail lets the turn run; its run is recorded', async () => {
  h.model.setScript(scriptByInput({ 'hello there': [{ content: 'hi' }] }));
  await withWorker(async () => {
    const t = await run('blocking', 'hello there');
    expect(t.state.status).toBe('completed');
    expect(t.state.guardrails).toMatchObject([{ name: 'no_secrets', tripped: false }]);
  });
});

test('a parallel guardrail runs beside the first model call; no tool runs when it trips', async () => {
  h.model.setScript(scriptByInput({ 'password: act now': [{ toolCalls: [{ name: 'act', arguments: {} }] }] }));
  ran.length = 0;
  await withWorker(async () => {
    const t = await run('parallel', 'password: act now');
    expect(t.type).toBe('GuardrailTripped');
  });
  expect(ran).toEqual([]);
});

test('a guardrail that throws or hangs fails closed', async () => {
  await withWorker(async () => {
    const thrown = await run('broken', 'anything');
    expect(thrown.type).toBe('GuardrailTripped');
    expect(thrown.state.guardrails?.[0]).toMatchObject({
      name: 'throws',
      tripped: true,
      error: expect.stringMatching(/checker down/),
    });
    const hung = await run('hangs', 'anything');
    expect(hung.type).toBe('GuardrailTripped');
    expect(hung.state.guardrails?.[0]?.error).toMatch(/timed out|Timeout/i);
  });
});

test('a guardrail that returns a huge info is recorded bounded', async () => {
  await withWorker(async () => {
    const t = await run('huge', 'anything');
    expect(t.result?.guardrail?.info).toBe('[1000011 characters of info]');
  });
});

test('an output guardrail trips on the answer', async () => {
  h.model.setScript(scriptByInput({ 'my number?': [{ content: 'It is 123-45-6789.' }] }));
  await withWorker(async () => {
    const t = await run('answers', 'my number?');
    expect(t.type).toBe('GuardrailTripped');
    expect(t.result?.guardrail).toMatchObject({ name: 'no_pii', kind: 'output' });
    expect(t.state.events.map((e) => e.type)).toEqual([
      'AGENT_STARTED',
      'MODEL_CALLED',
      'GUARDRAIL_RAN',
      'TURN_FAILED',
    ]);
  });
});

test('defineAgent refuses guardrails it cannot run', () => {
  const base = { name: 'g', instructions: 'x', tools: [] };
  expect(() =>
    defineAgent({ ...base, inputGuardrails: [{ name: 'bad name!', run: () => ({ tripwire: false }) }] }),
  ).toThrow(/name of 1-64/);
  expect(() => defineAgent({ ...base, inputGuardrails: [noSecrets, noSecrets] })).toThrow(/no_secrets twice/);
  expect(() => defineAgent({ ...base, outputGuardrails: [{ ...noSecrets, mode: 'parallel' } as never] })).toThrow(
    /input guardrails only/,
  );
  expect(() => defineAgent({ ...base, inputGuardrails: [{ name: 'x' } as never] })).toThrow(/no run function/);
});
