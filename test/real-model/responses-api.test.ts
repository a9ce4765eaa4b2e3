/**
 * The Responses API (`api: 'responses'`) against llama-server with a real model, past the first call: a
 * gated tool call approved through the client, its result sent back as a `function_call_output` item;
 * and a structured-output retry that sends the earlier answer back. Every item of a later request is
 * typed as the API reference types it (llama-server refuses an untyped one: 400 "Cannot determine type
 * of 'item'", issue 35), and the server takes the request.
 *
 * What llama-server does with a Responses request: it turns it into a chat one (the same template and
 * tool-call parser as Chat Completions), so the wire tap forces a tool call the same way
 * (`responsesToolPlan`, support/wire-tap.ts), stopping the answer at the call's closing tag so it holds
 * one call. It does not read `text.format`: the schema Tiller sends there constrains nothing, the
 * model's first answer is prose, and the retry path is taken without forcing it. The retry is then
 * given the schema as llama-server's own `response_format` field (which it does read from a Responses
 * body), so the retried answer matches and the turn completes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import type { TurnState } from '../../src/core/state';
import { awaitingApproval, waitForState } from '../support/harness';
import { createRealHarness, type RealHarness } from './support/harness';
import { responsesToolPlan, TOOL_CALL_OPENING, type Exchange } from './support/wire-tap';

const gated = defineAgent({
  name: 'responses-assistant',
  api: 'responses',
  instructions: 'You are a careful assistant working on files in a workspace. Answer briefly.',
  tools: ['delete_file'],
  approvals: { delete_file: true },
  modelSettings: { maxTokens: 40, temperature: 0, parallelToolCalls: false },
  onTruncated: 'accept',
});

const Person = z.object({ name: z.string(), age: z.number().int() });
const extractor = defineAgent({
  name: 'responses-extractor',
  api: 'responses',
  instructions: 'Extract the person the user mentions, as JSON with their name and age.',
  tools: [],
  output: Person,
  maxOutputRetries: 1,
  modelSettings: { maxTokens: 40, temperature: 0 },
  onTruncated: 'accept',
});

let h: RealHarness;
beforeAll(async () => {
  h = await createRealHarness();
});
afterAll(async () => {
  await h?.close();
});

/** The response as the server gave it: a stream's `response.completed`, or the JSON body. */
function served(e: Exchange): Record<string, any> {
  if (!e.chunks.length) return JSON.parse(e.text) as Record<string, any>;
  const done = e.chunks.find((c) => c.type === 'response.completed');
  expect(done).toBeDefined();
  return done!.response as Record<string, any>;
}

/** The output text of a served response. */
const servedText = (e: Exchange): string =>
  (served(e).output as { type: string; content?: { type: string; text: string }[] }[])
    .filter((i) => i.type === 'message')
    .flatMap((i) => i.content ?? [])
    .filter((p) => p.type === 'output_text')
    .map((p) => p.text)
    .join('');

type ModelCalled = Extract<TurnState['events'][number], { type: 'MODEL_CALLED' }>;

/** Each MODEL_CALLED is the server's response: on the Responses API, its function calls and its own usage. */
function expectRecordedAsServed(state: TurnState, exchanges: Exchange[]): void {
  const called = state.events.filter((e): e is ModelCalled => e.type === 'MODEL_CALLED');
  expect(called).toHaveLength(exchanges.length);
  called.forEach((event, i) => {
    const response = served(exchanges[i]!);
    expect(event).toMatchObject({ api: 'responses' });
    const calls = (response.output as { type: string; name: string; arguments: string }[])
      .filter((o) => o.type === 'function_call')
      .map((o) => ({ name: o.name, args: JSON.parse(o.arguments) as unknown }));
    expect(event.toolCalls.map((c) => ({ name: c.name, args: c.args }))).toEqual(calls);
    expect(event.usage).toMatchObject({
      inputTokens: response.usage.input_tokens,
      outputTokens: response.usage.output_tokens,
    });
    expect(event).not.toHaveProperty('usageEstimated');
  });
}

/** Every exchange a 200: the server took each request, the later ones' items included. */
function expectAccepted(exchanges: Exchange[]): void {
  for (const e of exchanges) {
    expect(e.text).not.toContain('Cannot determine type');
    expect(e.status).toBe(200);
  }
}

test('a gated tool call on the Responses API: approved, run, its result sent back as a function_call_output', async () => {
  const input = 'Delete notes.txt.';
  fs.writeFileSync(path.join(h.workspace, 'notes.txt'), 'Hello from Tiller!\n');
  const plan = responsesToolPlan(['delete_file', 'none']);
  // One call per answer: the answer stops at the call's closing tag (llama-server ignores parallel_tool_calls).
  h.tap.steer(input, (body) => {
    const steered = plan(body);
    return steered?.tool_choice === 'required' ? { ...steered, stop: ['</tool_call>'] } : steered;
  });
  const turnId = h.turnId('responses-approve');
  const state = await h.withWorker([gated], async () => {
    await h.tiller.startTurn({ agent: gated.name, input, turnId });
    const paused = await waitForState(h.tiller, turnId, awaitingApproval, 60_000);
    expect(paused.pendingApprovals).toHaveLength(1);
    const [pending] = paused.pendingApprovals;
    expect(pending!.tool).toBe('delete_file');
    // The approver names the file written above: a 135M model's own argument may name another.
    await h.tiller.decide(turnId, { id: pending!.id, approved: true, approver: 'alice', args: { path: 'notes.txt' } });
    const result = await h.tiller.result(turnId);
    expect(result).toMatchObject({ status: 'completed' });
    return h.tiller.state(turnId);
  });

  const exchanges = await h.tap.exchangesWith(input);
  expect(exchanges).toHaveLength(2);
  expectAccepted(exchanges);
  expect(exchanges.map((e) => e.body.stream)).toEqual([true, true]);
  expectRecordedAsServed(state, exchanges);
  expect(state.events.map((e) => e.type)).toEqual([
    'AGENT_STARTED',
    'MODEL_CALLED',
    'APPROVAL_REQUESTED',
    'TOOL_APPROVED',
    'TOOL_STARTED',
    'TOOL_ENDED',
    'MODEL_CALLED',
    'TURN_COMPLETED',
  ]);
  const [call] = state.toolCalls;
  expect(state.toolCalls).toHaveLength(1);
  expect(call).toMatchObject({
    name: 'delete_file',
    status: 'succeeded',
    decision: { approved: true, approver: 'alice' },
  });
  expect(fs.existsSync(path.join(h.workspace, 'notes.txt'))).toBe(false);

  // The first request: the user's input as a typed message (then the tap's opening of the call), the tool
  // as a Responses function tool.
  expect(exchanges[0]!.body).toMatchObject({
    instructions: gated.instructions,
    input: [
      { type: 'message', role: 'user', content: input },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: TOOL_CALL_OPENING }] },
    ],
    tools: [expect.objectContaining({ type: 'function', name: 'delete_file' })],
    store: false,
  });
  // The server's call, with the call_id the server gave it …
  const [servedCall] = (served(exchanges[0]!).output as Record<string, any>[]).filter(
    (o) => o.type === 'function_call',
  );
  expect(servedCall).toMatchObject({ name: 'delete_file', call_id: expect.any(String) });
  expect(call!.id).toBe(servedCall!.call_id);
  // … goes back in the second request as a function_call item, and the tool's result after it as a
  // function_call_output item of the same call_id: every item typed.
  expect(exchanges[1]!.body.input).toEqual([
    { type: 'message', role: 'user', content: input },
    { type: 'function_call', call_id: call!.id, name: 'delete_file', arguments: servedCall!.arguments },
    { type: 'function_call_output', call_id: call!.id, output: expect.stringContaining('Deleted notes.txt') },
  ]);
  expect(state.events.at(-1)).toMatchObject({ type: 'TURN_COMPLETED', output: servedText(exchanges[1]!) });
});

test('a structured-output retry on the Responses API sends the invalid answer back as a typed message and completes', async () => {
  const input = 'Grace Hopper was 85 years old.';
  // The retry (the turn's second request: a user message after the input) gets the schema as llama-server's
  // response_format; the first request goes out as Tiller sent it.
  h.tap.steerTurn(input, (body) => {
    const users = (body.input as { role?: string }[]).filter((i) => i.role === 'user');
    if (users.length < 2) return undefined;
    const format = body.text.format as { name: string; schema: unknown };
    return {
      ...body,
      response_format: { type: 'json_schema', json_schema: { name: format.name, schema: format.schema } },
    };
  });
  const turnId = h.turnId('responses-structured');
  const { result, state } = await h.withWorker([extractor], async () => {
    await h.tiller.startTurn({ agent: extractor.name, input, turnId });
    return { result: await h.tiller.result(turnId, Person), state: await h.tiller.state(turnId) };
  });

  const exchanges = await h.tap.exchangesWith(input);
  expect(exchanges).toHaveLength(2);
  expectAccepted(exchanges);
  expectRecordedAsServed(state, exchanges);
  const [first, retry] = exchanges as [Exchange, Exchange];
  // Tiller asked for the schema as the Responses API says (text.format); llama-server did not hold to it.
  const format = {
    type: 'json_schema',
    name: 'responses-extractor_output',
    schema: expect.objectContaining({ required: ['name', 'age'] }),
  };
  expect(first.body).toMatchObject({ text: { format }, input: [{ type: 'message', role: 'user', content: input }] });
  expect(first.body).not.toHaveProperty('response_format');
  const invalid = servedText(first);
  expect(() => Person.parse(JSON.parse(invalid))).toThrow();
  expect(state.events.map((e) => e.type)).toEqual([
    'AGENT_STARTED',
    'MODEL_CALLED',
    'OUTPUT_INVALID',
    'MODEL_CALLED',
    'TURN_COMPLETED',
  ]);
  expect(state.events.find((e) => e.type === 'OUTPUT_INVALID')).toMatchObject({ call: 1, attempt: 1 });

  // The retry: the input, the invalid answer verbatim as a typed assistant message, and why it was refused.
  expect(retry.body).toMatchObject({ text: { format } });
  expect(retry.body.input).toEqual([
    { type: 'message', role: 'user', content: input },
    { type: 'message', role: 'assistant', content: invalid },
    {
      type: 'message',
      role: 'user',
      content: expect.stringContaining('Your answer does not match the required output schema'),
    },
  ]);

  expect(result.status).toBe('completed');
  const parsed = JSON.parse(servedText(retry)) as unknown;
  expect(Person.safeParse(parsed).success).toBe(true);
  expect(result.parsed).toEqual(parsed);
  expect(state.parsed).toEqual(parsed);
  expect(result.usage).toMatchObject({
    modelCalls: 2,
    inputTokens: exchanges.reduce((n, e) => n + (served(e).usage.input_tokens as number), 0),
    outputTokens: exchanges.reduce((n, e) => n + (served(e).usage.output_tokens as number), 0),
  });
});
