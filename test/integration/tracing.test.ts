/**
 * OpenTelemetry: one trace per turn — the workflow's spans (through the SDK's interceptors and sink),
 * the activities', and Tiller's GenAI spans for the model call (model, tokens) and the tool call
 * (tool name, call id) — with no prompt, argument or result in any attribute.
 */
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { bundleWorkflowCode } from '@temporalio/worker';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { createTracing, WORKFLOW_TRACING_MODULE, type Tracing } from '../../src/observability/tracing';
import { defineTool } from '../../src/tools/define';
import { workflowsPath } from '../../src/worker/plugin';
import { createHarness, type Harness } from '../support/harness';

const SECRET_INPUT = 'the launch codes are 0000';
const SECRET_RESULT = 'result-canary-7f3a';
const lookup = defineTool({
  name: 'lookup',
  description: 'x',
  input: z.object({ q: z.string() }),
  execute: () => SECRET_RESULT,
});
const agent = defineAgent({ name: 'traced', instructions: 'x', tools: ['lookup'], model: 'scripted-4o' });

let h: Harness;
let exporter: InMemorySpanExporter;
let tracing: Tracing;
let code: string;
beforeAll(async () => {
  h = await createHarness();
  exporter = new InMemorySpanExporter();
  tracing = createTracing(new SimpleSpanProcessor(exporter), 'tiller-test');
  ({ code } = await bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: [WORKFLOW_TRACING_MODULE],
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error } as never,
  }));
}, 120_000);
afterAll(async () => {
  await tracing?.shutdown();
  await h.close();
});

test('a turn is one trace: workflow, model call with GenAI attributes, tool call', async () => {
  h.model.setScript([
    {
      toolCalls: [{ id: 't1', name: 'lookup', arguments: { q: SECRET_INPUT } }],
      usage: { prompt_tokens: 21, completion_tokens: 4 },
    },
    { content: 'done', usage: { prompt_tokens: 30, completion_tokens: 2 } },
  ]);
  const turnId = h.turnId('traced');
  await (
    await h.worker({ agents: [agent], tools: [lookup], tracing, workflowBundle: { code } })
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'traced', input: SECRET_INPUT, turnId });
    expect((await h.tiller.result(turnId)).status).toBe('completed');
  });
  await tracing.processor.forceFlush();
  const spans = exporter.getFinishedSpans();
  const named = (name: string) => spans.filter((s) => s.name === name);
  const run = named('RunWorkflow:agentTurn');
  expect(run).toHaveLength(1);
  const traceId = run[0]!.spanContext().traceId;

  const chats = named('chat scripted-4o');
  expect(chats).toHaveLength(2);
  expect(chats.map((s) => s.attributes)).toEqual([
    expect.objectContaining({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'scripted-4o',
      'gen_ai.usage.input_tokens': 21,
      'gen_ai.usage.output_tokens': 4,
    }),
    expect.objectContaining({ 'gen_ai.usage.input_tokens': 30, 'gen_ai.usage.output_tokens': 2 }),
  ]);
  const tool = named('execute_tool lookup');
  expect(tool).toHaveLength(1);
  expect(tool[0]!.attributes).toMatchObject({ 'gen_ai.tool.name': 'lookup', 'gen_ai.tool.call.id': 't1' });
  expect(named('RunActivity:runTool')).toHaveLength(1);

  // All in the turn's trace, the GenAI spans inside their activities' spans.
  for (const s of [...chats, ...tool, ...named('RunActivity:callModel')]) expect(s.spanContext().traceId).toBe(traceId);
  const parentOf = (s: ReadableSpan) => spans.find((p) => p.spanContext().spanId === s.parentSpanId)?.name;
  expect(parentOf(tool[0]!)).toBe('RunActivity:runTool');
  expect(parentOf(chats[0]!)).toBe('RunActivity:callModel');

  const attributes = JSON.stringify(spans.map((s) => s.attributes));
  expect(attributes).not.toContain(SECRET_INPUT);
  expect(attributes).not.toContain(SECRET_RESULT);
});
