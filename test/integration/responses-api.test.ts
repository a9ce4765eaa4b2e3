/**
 * The Responses API end to end: turns on the real Temporal dev server whose agents speak `api: 'responses'`
 * to the scripted model's `POST /v1/responses`, played from the same scripts as Chat Completions. A turn's
 * events, state, usage, tool calls and approvals do not depend on the API that answered (nor on whether
 * it streamed); reasoning items are carried to the next call where the provider keeps nothing, and
 * `previous_response_id` continues where it keeps responses (the full input again once it forgets them).
 */
import { WorkflowFailedError } from '@temporalio/client';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import type { TurnState } from '../../src/core/state';
import { defineTool } from '../../src/tools/define';
import type { ScriptStep } from '../../src/testing/scripted-model';
import { awaitingApproval, createHarness, waitForState, type Harness } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.model.requests.length = 0;
});

const ping = defineTool({ name: 'ping', description: 'ping', input: z.object({}), execute: () => 'pong' });
const zap = defineTool({
  name: 'zap',
  description: 'zap a target',
  input: z.object({ target: z.string() }),
  execute: ({ target }) => `zapped ${target}`,
});
const Person = z.object({ name: z.string(), age: z.number().int() });
const common = { instructions: 'You ping and zap.', tools: ['ping', 'zap'], approvals: { zap: true } };
const agents = [
  defineAgent({ name: 'on-chat', api: 'chat', ...common }),
  defineAgent({ name: 'on-responses', api: 'responses', ...common }),
  defineAgent({ name: 'on-responses-whole', api: 'responses', stream: false, ...common }),
  defineAgent({ name: 'on-kept', provider: 'kept', ...common }),
  defineAgent({ name: 'extractor', api: 'responses', instructions: 'Extract.', tools: [], output: Person }),
  defineAgent({ name: 'cut', api: 'responses', instructions: 'x', tools: [], stream: false }),
];
const run = <T>(fn: () => Promise<T>) =>
  h.withWorker(fn, {
    agents,
    tools: [ping, zap],
    // A provider that keeps responses: agents on it continue with previous_response_id.
    providers: { kept: { baseURL: h.model.url, api: 'responses', store: true } },
  });

/** A tool call, a gated call a human approves, then the answer. */
const script = (): ScriptStep[] => [
  {
    content: 'Pinging first.',
    toolCalls: [{ id: 'p1', name: 'ping', arguments: {} }],
    usage: { prompt_tokens: 100, completion_tokens: 7 },
  },
  {
    toolCalls: [{ id: 'z1', name: 'zap', arguments: { target: 'x' } }],
    usage: { prompt_tokens: 120, completion_tokens: 9 },
  },
  { content: 'Pinged and zapped.', usage: { prompt_tokens: 140, completion_tokens: 5 } },
];

/** A turn of `agent` on the script: started, its gated call approved, and its end state. */
async function turn(agent: string, between?: () => void): Promise<TurnState> {
  h.model.setScript(script());
  const turnId = h.turnId(agent);
  await h.tiller.startTurn({ agent, input: 'ping then zap x', turnId });
  await waitForState(h.tiller, turnId, awaitingApproval);
  between?.();
  await h.tiller.approve(turnId, 'z1');
  await h.tiller.result(turnId);
  return h.tiller.state(turnId);
}

const CLOCK = new Set(['at', 'startedAt', 'endedAt', 'durationMs', 'requestedAt', 'expiresAt', 'decidedAt']);

/**
 * A turn's state without what differs between any two runs: times, durations, the turn's id, the agent's
 * name, the arguments' digest (salted per turn) and the API's name.
 */
function comparable(s: TurnState): unknown {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (!v || typeof v !== 'object') return typeof v === 'string' ? v.replace(s.turnId, '<turn>') : v;
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !CLOCK.has(k) && !['api', 'agent', 'argsDigest'].includes(k))
        .map(([k, x]) => [k, strip(x)]),
    );
  };
  const { events, status, usage, toolCalls, output } = s;
  return strip({ events, status, usage, toolCalls, output });
}

test('the same script on Chat Completions and on the Responses API (streamed and whole): the same events, state, usage and approvals', async () => {
  await run(async () => {
    const chat = await turn('on-chat');
    const responses = await turn('on-responses');
    const whole = await turn('on-responses-whole');

    expect(chat.status).toBe('completed');
    expect(chat.output).toBe('Pinged and zapped.');
    expect(chat.usage).toEqual({ inputTokens: 360, outputTokens: 21, totalTokens: 381, modelCalls: 3 });
    expect(chat.toolCalls.map((c) => [c.id, c.name, c.status, c.result])).toEqual([
      ['p1', 'ping', 'succeeded', 'pong'],
      ['z1', 'zap', 'succeeded', 'zapped x'],
    ]);
    expect(chat.events.map((e) => e.type)).toEqual([
      'AGENT_STARTED',
      'MODEL_CALLED',
      'TOOL_STARTED',
      'TOOL_ENDED',
      'MODEL_CALLED',
      'APPROVAL_REQUESTED',
      'TOOL_APPROVED',
      'TOOL_STARTED',
      'TOOL_ENDED',
      'MODEL_CALLED',
      'TURN_COMPLETED',
    ]);
    expect(comparable(responses)).toEqual(comparable(chat));
    expect(comparable(whole)).toEqual(comparable(chat));
    // The only difference: which API answered, on each model call's event.
    const apis = (s: TurnState) => s.events.flatMap((e) => (e.type === 'MODEL_CALLED' ? [e.api ?? 'chat'] : []));
    expect(apis(chat)).toEqual(['chat', 'chat', 'chat']);
    expect(apis(responses)).toEqual(['responses', 'responses', 'responses']);
  });
  const byApi = (api: string) => h.model.requests.filter((r) => r.api === api);
  expect(byApi('chat')).toHaveLength(3);
  expect(byApi('responses').map((r) => r.stream)).toEqual([true, true, true, false, false, false]);
  // Nothing kept by default: every call sends the full input, its results as function_call_output items.
  const third = byApi('responses')[2]!.body;
  expect(third).toMatchObject({ instructions: 'You ping and zap.', store: false });
  expect(third.previous_response_id).toBeUndefined();
  expect(third.input).toEqual([
    { type: 'message', role: 'user', content: 'ping then zap x' },
    { type: 'message', role: 'assistant', content: 'Pinging first.' },
    { type: 'function_call', call_id: 'p1', name: 'ping', arguments: '{}' },
    { type: 'function_call_output', call_id: 'p1', output: 'pong' },
    { type: 'function_call', call_id: 'z1', name: 'zap', arguments: '{"target":"x"}' },
    { type: 'function_call_output', call_id: 'z1', output: 'zapped x' },
  ]);
});

test('a provider that keeps responses: each call continues from the last with previous_response_id and sends only what is new', async () => {
  let chat: TurnState | undefined;
  await run(async () => {
    chat = await turn('on-chat');
    h.model.requests.length = 0;
    const kept = await turn('on-kept');
    expect(comparable(kept)).toEqual(comparable(chat!));
  });
  const bodies = h.model.requests.map((r) => r.body);
  expect(h.model.requests.map((r) => r.api)).toEqual(['responses', 'responses', 'responses']);
  expect(bodies.map((b) => b.store)).toEqual([true, true, true]);
  expect(bodies[0].previous_response_id).toBeUndefined();
  expect(bodies[1].previous_response_id).toMatch(/^resp_/);
  expect(bodies[2].previous_response_id).toMatch(/^resp_/);
  expect(bodies[2].previous_response_id).not.toBe(bodies[1].previous_response_id);
  expect(bodies[1].input).toEqual([{ type: 'function_call_output', call_id: 'p1', output: 'pong' }]);
  expect(bodies[2].input).toEqual([{ type: 'function_call_output', call_id: 'z1', output: 'zapped x' }]);
  expect(bodies.every((b) => b.instructions === 'You ping and zap.')).toBe(true);
});

test('a kept response the provider has forgotten: the call is asked again at once with the full input, and the turn goes on', async () => {
  await run(async () => {
    // Forgotten while the gated call waits for its human: the answer after it cannot continue from it.
    const s = await turn('on-kept', () => h.model.forgetResponses());
    expect(s.status).toBe('completed');
    expect(s.output).toBe('Pinged and zapped.');
    expect(s.usage.modelCalls).toBe(3);
  });
  const bodies = h.model.requests.map((r) => r.body);
  expect(bodies).toHaveLength(4);
  expect(bodies[2].previous_response_id).toMatch(/^resp_/);
  expect(bodies[3].previous_response_id).toBeUndefined();
  expect(bodies[3].input).toHaveLength(6);
});

test('reasoning items are carried to the next call with their encrypted_content, and the summary is recorded', async () => {
  await run(async () => {
    h.model.setScript([
      { reasoning: 'A ping comes first.', toolCalls: [{ id: 'p1', name: 'ping', arguments: {} }] },
      { content: 'Pinged.' },
    ]);
    const turnId = h.turnId('reasoning');
    await h.tiller.startTurn({ agent: 'on-responses', input: 'ping', turnId });
    const result = await h.tiller.result(turnId);
    expect(result).toMatchObject({ status: 'completed', output: 'Pinged.' });
    const called = (await h.tiller.state(turnId)).events.find((e) => e.type === 'MODEL_CALLED');
    expect(called).toMatchObject({ reasoning: 'A ping comes first.', api: 'responses' });
  });
  const [first, second] = h.model.requests.map((r) => r.body);
  expect(first.include).toEqual(['reasoning.encrypted_content']);
  expect(second.input).toEqual([
    { type: 'message', role: 'user', content: 'ping' },
    {
      id: expect.stringMatching(/^rs_/),
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'A ping comes first.' }],
      encrypted_content: expect.any(String),
    },
    { type: 'function_call', call_id: 'p1', name: 'ping', arguments: '{}' },
    { type: 'function_call_output', call_id: 'p1', output: 'pong' },
  ]);
});

test('structured output is asked for as text.format json_schema, and the answer parsed', async () => {
  await run(async () => {
    h.model.setScript([{ json: { name: 'Ada', age: 36 } }]);
    const turnId = h.turnId('structured');
    await h.tiller.startTurn({ agent: 'extractor', input: 'Ada, 36', turnId });
    const result = await h.tiller.result(turnId, Person);
    expect(result).toMatchObject({ status: 'completed', parsed: { name: 'Ada', age: 36 } });
  });
  const body = h.model.requests[0]!.body;
  expect(body.response_format).toBeUndefined();
  expect(body.text).toEqual({
    format: {
      type: 'json_schema',
      name: 'extractor_output',
      strict: true,
      schema: expect.objectContaining({ type: 'object', required: ['name', 'age'], additionalProperties: false }),
    },
  });
});

test('a response cut at max_output_tokens fails the turn as a cut answer, as finish_reason length does', async () => {
  await run(async () => {
    h.model.setScript([{ content: 'Half an ans', incomplete: 'max_output_tokens' }]);
    const turnId = h.turnId('cut');
    await h.tiller.startTurn({ agent: 'cut', input: 'go', turnId });
    const failure = await h.client.workflow
      .getHandle(turnId)
      .result()
      .then(
        () => undefined,
        (e: unknown) => (e instanceof WorkflowFailedError ? e.cause : e),
      );
    expect(failure).toMatchObject({ type: 'ModelTruncated', message: expect.stringMatching(/cut at the token limit/) });
    const state = await h.tiller.state(turnId);
    expect(state.events.map((e) => e.type)).toEqual(['AGENT_STARTED', 'MODEL_CALLED', 'TURN_FAILED']);
    expect(state.events[1]).toMatchObject({ finishReason: 'length', text: 'Half an ans', api: 'responses' });
  });
});
