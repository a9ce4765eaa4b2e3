/**
 * Guardrails that are agents (`guardrailAgent({ agent })`): one model call with the agent's instructions and
 * structured output, in the `runGuardrail` activity. Its verdict trips the turn `GuardrailTripped` with its
 * bounded answer; a malformed, huge or refused answer, or a `tripwireOf` that throws, fails closed with the
 * reason; an unregistered guardrail agent (or one with tools) stops the worker from starting.
 */
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { guardrailAgent } from '../../src/agents/guardrails';
import { scriptByInstructions, type ScriptStep } from '../../src/testing/scripted-model';
import { runToEnd, useHarness } from '../support/harness';

const h = useHarness();

/** A guardrail agent per hostile case: each has its own instructions, so its own route in the script. */
const checkers = ['moderator', 'malformed', 'huge', 'refuses', 'throws', 'untyped'];
const leaks = z.object({ leaks: z.array(z.string()) });
const agents = [
  ...checkers.map((name) => defineAgent({ name, instructions: `You check (${name}).`, tools: [] })),
  defineAgent({ name: 'leak_finder', instructions: 'You find leaks.', tools: [], output: leaks }),
  defineAgent({
    name: 'helper',
    instructions: 'You help.',
    tools: [],
    inputGuardrails: [guardrailAgent({ agent: 'moderator' })],
  }),
  defineAgent({
    name: 'quick',
    instructions: 'You help quickly.',
    tools: [],
    inputGuardrails: [guardrailAgent({ agent: 'moderator', mode: 'parallel' })],
  }),
  ...['malformed', 'huge', 'refuses', 'untyped'].map((checker) =>
    defineAgent({
      name: `guarded_by_${checker}`,
      instructions: 'You help.',
      tools: [],
      inputGuardrails: [guardrailAgent({ agent: checker })],
    }),
  ),
  defineAgent({
    name: 'guarded_by_throws',
    instructions: 'You help.',
    tools: [],
    inputGuardrails: [
      guardrailAgent({
        agent: 'throws',
        tripwireOf: () => {
          throw new Error('mapping broke');
        },
      }),
    ],
  }),
  defineAgent({
    name: 'careful',
    instructions: 'You answer carefully.',
    tools: [],
    outputGuardrails: [
      guardrailAgent({
        name: 'no_leaks',
        agent: 'leak_finder',
        tripwireOf: (o) => ({ tripwire: (o as z.infer<typeof leaks>).leaks.length > 0, info: o }),
      }),
    ],
  }),
];
const withWorker = <T>(fn: () => Promise<T>) => h.withWorker(fn, { agents, tools: [] });
const script = (routes: Record<string, ScriptStep[]>) => h.model.setScript(scriptByInstructions(routes));
const verdict = (tripwire: boolean, reason: string): ScriptStep => ({
  json: { tripwire, reason },
  usage: { prompt_tokens: 30, completion_tokens: 10 },
});

const run = (agent: string, input: string, fixture?: string) => runToEnd(h, agent, input, fixture);

test('a guardrail agent trips the turn before the model is called, with its reason and its tokens', async () => {
  script({ 'You check (moderator).': [verdict(true, 'it asks for a password')] });
  await withWorker(async () => {
    const t = await run('helper', 'tell me the admin password', 'guardrail-agent-tripped');
    expect(t.type).toBe('GuardrailTripped');
    expect(t.message).toMatch(/input guardrail moderator tripped/);
    expect(t.result?.guardrail).toEqual({
      name: 'moderator',
      kind: 'input',
      info: { tripwire: true, reason: 'it asks for a password' },
    });
    expect(t.state.guardrails).toMatchObject([{ name: 'moderator', agent: 'moderator', tripped: true }]);
    expect(t.state.usage).toMatchObject({ inputTokens: 30, outputTokens: 10, modelCalls: 1 });
    expect(t.state.events.map((e) => e.type)).toEqual(['AGENT_STARTED', 'GUARDRAIL_RAN', 'TURN_FAILED']);
  });
  // One request, the guardrail agent's: its instructions, the input, a strict verdict schema, no tools.
  expect(h.model.requests).toHaveLength(1);
  const body = h.model.requests[0]!.body;
  expect(body.messages).toEqual([
    { role: 'system', content: 'You check (moderator).' },
    { role: 'user', content: 'tell me the admin password' },
  ]);
  expect(body.response_format.json_schema).toMatchObject({
    strict: true,
    schema: { properties: { tripwire: { type: 'boolean' }, reason: { type: 'string' } } },
  });
  expect(body.tools).toBeUndefined();
  expect(body.stream).toBeFalsy();
});

test('a passing guardrail agent lets the turn answer; a failed call to it is retried; parallel runs beside', async () => {
  script({
    'You check (moderator).': [
      { error: { status: 503, message: 'busy' } },
      verdict(false, 'fine'),
      verdict(false, 'ok'),
    ],
    'You help.': [{ content: 'hello!' }],
    'You help quickly.': [{ content: 'hi!' }],
  });
  await withWorker(async () => {
    const t = await run('helper', 'hello');
    expect(t.state.status).toBe('completed');
    expect(t.state.output).toBe('hello!');
    expect(t.state.guardrails).toMatchObject([{ name: 'moderator', tripped: false, info: { reason: 'fine' } }]);
    const quick = await run('quick', 'hello');
    expect(quick.state.output).toBe('hi!');
    expect(quick.state.usage.modelCalls).toBe(2);
  });
});

test('an output guardrail agent with its own schema and tripwireOf trips on the answer', async () => {
  script({
    'You answer carefully.': [{ content: 'The key is sk-123.' }],
    'You find leaks.': [{ json: { leaks: ['sk-123'] } }],
  });
  await withWorker(async () => {
    const t = await run('careful', 'what is the key?');
    expect(t.type).toBe('GuardrailTripped');
    expect(t.result?.guardrail).toEqual({ name: 'no_leaks', kind: 'output', info: { leaks: ['sk-123'] } });
  });
  const checked = h.model.requests.find((r) => r.body.messages[0].content === 'You find leaks.')!;
  expect(checked.body.messages[1].content).toBe(
    "The user's message:\nwhat is the key?\n\nThe answer to check:\nThe key is sk-123.",
  );
});

test('a guardrail agent that answers garbage, too much, refuses, or whose mapping throws fails closed', async () => {
  const refusal = {
    id: 'r1',
    object: 'chat.completion',
    created: 1,
    model: 'scripted',
    choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: 'I will not judge this.' } }],
  };
  script({
    'You check (malformed).': [{ content: 'looks fine to me' }],
    'You check (huge).': [{ content: JSON.stringify({ tripwire: false, reason: 'x'.repeat(200_000) }) }],
    'You check (refuses).': [{ garbage: JSON.stringify(refusal) }],
    'You check (throws).': [verdict(false, 'fine')],
    'You check (untyped).': [{ json: { verdict: 'pass' } }],
  });
  const expected: Record<string, RegExp> = {
    malformed: /did not answer with its verdict: the answer is not JSON/,
    huge: /answered \d+ characters, more than 100000/,
    refuses: /refused to answer: I will not judge this/,
    throws: /tripwireOf failed: mapping broke/,
    untyped: /did not answer with its verdict: .*tripwire/,
  };
  await withWorker(async () => {
    for (const [checker, reason] of Object.entries(expected)) {
      const t = await run(`guarded_by_${checker}`, 'anything');
      expect([checker, t.type]).toEqual([checker, 'GuardrailTripped']);
      expect(t.state.guardrails?.[0]).toMatchObject({
        name: checker,
        tripped: true,
        error: expect.stringMatching(reason),
      });
    }
  });
  // Each was asked once: an answer that is not a verdict is not retried.
  expect(h.model.requests).toHaveLength(Object.keys(expected).length);
});

test('a guardrail agent that is not registered, or that has tools, stops the worker from starting', async () => {
  const guarded = (agent: string) =>
    defineAgent({ name: 'g', instructions: 'x', tools: [], inputGuardrails: [guardrailAgent({ agent })] });
  await expect(h.worker({ agents: [guarded('nobody')] })).rejects.toThrow(
    /guardrail nobody runs agent nobody, which is not registered/,
  );
  const busy = defineAgent({ name: 'busy', instructions: 'x', tools: ['read_file'] });
  await expect(h.worker({ agents: [guarded('busy'), busy] })).rejects.toThrow(/which has tools: a guardrail agent/);
});
