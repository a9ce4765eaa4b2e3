/**
 * What a turn does with each wire quirk of real servers (the activity's side is in
 * test/unit/model-conformance.test.ts): the hand-written streams in test/fixtures/model-streams/hand-written/ served
 * verbatim by the scripted model (`garbage` steps), through a real Temporal turn.
 */
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import type { TurnEvent } from '../../src/core/state/events';
import { defineTool } from '../../src/tools/define';
import { recordFixture } from '../support/fixtures';
import { bundle, runToEnd, useHarness, type Harness } from '../support/harness';
import { withPayloadGuard } from '../../src/codec/guard';
import { recorded } from '../support/recorded-model';

const h = useHarness();

const readFile = defineTool({
  name: 'read_file',
  description: 'read a file',
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `contents of ${path}`,
});
const agents = [
  defineAgent({ name: 'reader', instructions: 'x', tools: ['read_file'] }),
  defineAgent({ name: 'lenient', instructions: 'x', tools: ['read_file'], onTruncated: 'accept' }),
  defineAgent({ name: 'budgeted', instructions: 'x', tools: ['read_file'], turnTokenBudget: 5 }),
];
const replayed = (file: string) => ({ garbage: recorded(file) });

/** Runs a turn of `agent` on the script; its events and how it ended. */
async function turn(agent: string, script: Parameters<Harness['model']['setScript']>[0], fixture?: string) {
  h.model.setScript(script);
  return h.withWorker(() => runToEnd(h, agent, 'Read notes.txt', fixture), { agents, tools: [readFile] });
}
const types = (events: TurnEvent[]) => events.map((e) => e.type);
const modelCalls = (events: TurnEvent[]) =>
  events.filter((e): e is Extract<TurnEvent, { type: 'MODEL_CALLED' }> => e.type === 'MODEL_CALLED');

test('a server that repeats the tool name in every delta: the tool runs under its own name', async () => {
  const { state } = await turn('reader', [replayed('hand-written/chat/name-repeated.sse'), { content: 'It says hi.' }]);
  expect(state.status).toBe('completed');
  expect(state.toolCalls.map((c) => [c.name, c.status])).toEqual([['read_file', 'succeeded']]);
  expect(h.model.requests[1]!.body.messages.at(-1)).toEqual({
    role: 'tool',
    tool_call_id: 'call_x',
    content: 'contents of notes.txt',
  });
});

test('an empty 200 stream is retried, and the turn answers with what the model said next (not with nothing)', async () => {
  const { state } = await turn('reader', [
    replayed('hand-written/chat/empty-200.sse'),
    { content: 'The real answer.' },
  ]);
  expect([state.status, state.output]).toEqual(['completed', 'The real answer.']);
  expect(modelCalls(state.events)).toHaveLength(1);
  expect(h.model.requests).toHaveLength(2);
});

test('usage the server did not report is estimated, marked, counted, and trips a token budget', async () => {
  const { state } = await turn('reader', [replayed('hand-written/chat/no-usage.sse')]);
  expect(state.output).toBe('Hello there.');
  const [called] = modelCalls(state.events);
  expect(called!.usageEstimated).toBe(true);
  expect(state.usage.totalTokens).toBeGreaterThan(0);
  expect(state.usage).toMatchObject({ modelCalls: 1, estimatedCalls: 1 });

  const noUsageCall = recorded('hand-written/chat/no-usage.sse').replace(
    /"content":"Hello"/,
    '"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\\"path\\":\\"a\\"}"}}]',
  );
  const budget = await turn('budgeted', [{ garbage: noUsageCall }]);
  expect(budget.message).toMatch(/token budget exceeded/);
});

test('finish_reason length fails the turn ModelTruncated, saying what to change; onTruncated: accept keeps the text', async () => {
  const cut = await turn('reader', [replayed('hand-written/chat/length.sse')], 'finish-length-failed');
  expect(cut.type).toBe('ModelTruncated');
  expect(cut.message).toMatch(/cut at the token limit .*raise modelSettings.maxTokens/);
  expect(types(cut.state.events)).toEqual(['AGENT_STARTED', 'MODEL_CALLED', 'TURN_FAILED']);
  expect(cut.state.usage.outputTokens).toBe(8);

  const kept = await turn('lenient', [replayed('hand-written/chat/length.sse')]);
  expect([kept.state.status, kept.state.output]).toEqual(['completed', 'The three reasons are: first, the']);
  expect(modelCalls(kept.state.events)[0]!.finishReason).toBe('length');
});

test('content_filter and a refusal fail the turn ModelRefused, with the refusal in the event', async () => {
  const filtered = await turn('reader', [replayed('hand-written/chat/content-filter.sse')]);
  expect(filtered.type).toBe('ModelRefused');
  expect(filtered.message).toMatch(/content_filter/);

  const refused = await turn('reader', [replayed('hand-written/chat/refusal.sse')]);
  expect(refused.type).toBe('ModelRefused');
  expect(refused.message).toMatch(/I'm sorry, I can't help with that/);
  expect(modelCalls(refused.state.events)[0]!.refusal).toBe("I'm sorry, I can't help with that.");
});

test('arguments that are not JSON and a tool never offered reach the model as tool errors; the turn goes on', async () => {
  const { state } = await turn('reader', [
    replayed('hand-written/chat/invalid-json-args.sse'),
    replayed('hand-written/chat/unoffered-tool.sse'),
    { content: 'I could not.' },
  ]);
  expect([state.status, state.output]).toEqual(['completed', 'I could not.']);
  const [, second, third] = h.model.requests;
  expect(second!.body.messages.at(-1).content).toMatch(/not valid JSON/);
  expect(third!.body.messages.at(-1).content).toMatch(/rm_rf/);
  expect(state.toolCalls.map((c) => c.status)).toEqual(['failed', 'failed']);
});

test('reasoning text is recorded with the call and never sent back to the model', async () => {
  // Two model calls: the reasoning comes with a tool call, so the model is asked again and that second
  // request is what must not carry it (a one-step script asked once and checked nothing: issue 34).
  const withCall = recorded('hand-written/chat/reasoning-content.sse')
    .replace(
      '"delta":{"content":"Hi!","reasoning_content":null},"finish_reason":null',
      '"delta":{"content":null,"reasoning_content":null,"tool_calls":[{"index":0,"id":"call_r","type":"function",' +
        '"function":{"name":"read_file","arguments":"{\\"path\\":\\"notes.txt\\"}"}}]},"finish_reason":null',
    )
    .replace('"finish_reason":"stop"', '"finish_reason":"tool_calls"');
  expect(withCall).toMatch(/call_r/);
  const { state } = await turn('reader', [{ garbage: withCall }, { content: 'It says hi.' }]);
  expect([state.status, state.output]).toEqual(['completed', 'It says hi.']);
  expect(modelCalls(state.events)[0]!.reasoning).toBe('The user wants a greeting. Keep it short.');
  expect(h.model.requests).toHaveLength(2);
  const second = h.model.requests[1]!.body.messages;
  expect(second.some((m: { tool_calls?: unknown }) => m.tool_calls !== undefined)).toBe(true);
  expect(JSON.stringify(second)).not.toMatch(/greeting|Keep it short/);
});

test("a cut answer taken as the answer on code from before the patch still replays on today's code", async () => {
  const v010 = { codePath: path.resolve(__dirname, '../fixtures/bundles/workflows-v0.1.0.js') };
  h.model.setScript([replayed('hand-written/chat/length.sse')]);
  const turnId = h.turnId('length-v010');
  await h.withWorker(
    async () => {
      await h.tiller.startTurn({ agent: 'reader', input: 'Read notes.txt', turnId });
      expect((await h.tiller.result(turnId)).output).toBe('The three reasons are: first, the');
    },
    { agents, tools: [readFile], workflowBundle: v010 },
  );
  await recordFixture(h.client, turnId, 'finish-length-before-patch');
  const history = await h.client.workflow.getHandle(turnId).fetchHistory();
  await Worker.runReplayHistory({ workflowBundle: bundle(), dataConverter: withPayloadGuard() }, history, turnId);
});
