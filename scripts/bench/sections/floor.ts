/**
 * Floor: the same agent loop in-process, without Temporal — the `openai` client against the same
 * scripted model, the same streamed request (tools, usage), the same argument validation and tool —
 * so every durable figure can be read as floor + overhead. Step time is measured the same way as in
 * the durable runs: between two consecutive model requests the server receives.
 */
import { randomUUID } from 'node:crypto';
import type OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { toolParameters, type ToolDefinition } from '../../../src/tools/define';
import { INSTRUCTIONS, planInput, STEP_TOOL, type Recorder } from '../fixture';
import { gaps, linearFit, roundSummary, summarize, round, type Summary } from '../stats';

export interface FloorResult {
  stepsPerTurn: number;
  turns: number;
  stepMs: Summary;
  /** Client-side: whole loop time / steps. */
  clientMsPerStep: number;
  slopeMsPerStep: number;
}

async function loop(openai: OpenAI, tools: ToolDefinition<any>[], input: string): Promise<void> {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: INSTRUCTIONS },
    { role: 'user', content: input },
  ];
  const toolParams = tools.map((t) => ({
    type: 'function' as const,
    function: { name: t.name, description: t.description, parameters: toolParameters(t) },
  }));
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (;;) {
    const stream = await openai.chat.completions.create({
      model: 'scripted',
      messages,
      tools: toolParams,
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = '';
    const calls: { id: string; name: string; arguments: string }[] = [];
    for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
      for (const choice of chunk.choices) {
        if (typeof choice.delta?.content === 'string') content += choice.delta.content;
        for (const tc of choice.delta?.tool_calls ?? []) {
          const slot = (calls[tc.index] ??= { id: '', name: '', arguments: '' });
          if (tc.id) slot.id = tc.id;
          if (tc.function?.name) slot.name += tc.function.name;
          if (tc.function?.arguments) slot.arguments += tc.function.arguments;
        }
      }
    }
    messages.push({
      role: 'assistant',
      content,
      ...(calls.length > 0 && {
        tool_calls: calls.map((c) => ({
          id: c.id,
          type: 'function' as const,
          function: { name: c.name, arguments: c.arguments },
        })),
      }),
    });
    if (calls.length === 0) return;
    for (const c of calls) {
      const tool = byName.get(c.name);
      if (!tool) throw new Error(`floor: unknown tool ${c.name}`);
      const args = tool.input.parse(JSON.parse(c.arguments));
      const result = await tool.execute(args, {
        idempotencyKey: c.id,
        toolCallId: c.id,
        turnId: 'floor',
        workflowId: 'floor',
        agent: 'floor',
        signal: new AbortController().signal,
        heartbeat: () => undefined,
      });
      messages.push({ role: 'tool', tool_call_id: c.id, content: String(result) });
    }
  }
}

export async function runFloor(opts: {
  openai: OpenAI;
  tools: ToolDefinition<any>[];
  rec: Recorder;
  steps: number;
  turns: number;
}): Promise<FloorResult> {
  const tools = opts.tools.filter((t) => t.name === STEP_TOOL);
  // Warm-up: JIT, sockets, the model server.
  for (let i = 0; i < 3; i++) await loop(opts.openai, tools, planInput({ key: `floor-warm-${i}`, steps: 50 }));
  const all: number[] = [];
  const slopes: number[] = [];
  let wall = 0;
  for (let t = 0; t < opts.turns; t++) {
    const key = `floor-${randomUUID()}`;
    const started = performance.now();
    await loop(opts.openai, tools, planInput({ key, steps: opts.steps }));
    wall += performance.now() - started;
    const steps = gaps(opts.rec.requests.get(key) ?? []);
    opts.rec.requests.delete(key);
    all.push(...steps);
    slopes.push(linearFit(steps).slope);
  }
  return {
    stepsPerTurn: opts.steps,
    turns: opts.turns,
    stepMs: roundSummary(summarize(all), 3),
    clientMsPerStep: round(wall / (opts.steps * opts.turns), 3),
    slopeMsPerStep: round(slopes.reduce((s, x) => s + x, 0) / slopes.length, 5),
  };
}
