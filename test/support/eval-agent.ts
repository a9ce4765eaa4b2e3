/**
 * The agent the eval tests record and re-run: `stamper`, whose one tool `stamp` leaves a mark (a line in
 * a file) each time it really runs, and the scripted model's answers for its two sets of instructions:
 * V1 stamps every order; V2 skips the tool for every fifth order (`order 5`, `order 10`, …).
 */
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { systemPrompt, type ScriptFn } from '../../src/testing/scripted-model';
import { defineTool } from '../../src/tools/define';

export const V1 = 'You stamp every order with the stamp tool, then confirm.';
export const V2 = 'You stamp orders with the stamp tool unless the order number is a multiple of five, then confirm.';

/** The tool: each execution appends `order <n> <nonce>` to `marks` and returns the nonce. */
export const stampTool = (marks: string) =>
  defineTool({
    name: 'stamp',
    description: 'Stamp an order as checked',
    input: z.object({ order: z.number().int() }),
    execute: async ({ order }) => {
      const nonce = randomUUID().slice(0, 8);
      fs.appendFileSync(marks, `order ${order} ${nonce}\n`);
      return `stamped ${order} as ${nonce}`;
    },
  });

export const stamper = defineAgent({ name: 'stamper', instructions: V1, tools: ['stamp'] });

const orderOf = (body: { messages?: { role: string; content?: unknown }[] }) =>
  Number(/order (\d+)/.exec(String(body.messages?.find((m) => m.role === 'user')?.content ?? ''))?.[1] ?? -1);

/** The scripted model for both instructions (anything else: a 500 naming the prompt). */
export const stamperScript: ScriptFn = ({ body }) => {
  const prompt = systemPrompt(body);
  const order = orderOf(body as never);
  const messages = (body as { messages: { role: string; content?: unknown }[] }).messages;
  const usage = { prompt_tokens: 40, completion_tokens: 10 };
  if (prompt !== V1 && prompt !== V2) return { error: { status: 500, message: `no script for ${prompt}` } };
  const result = messages.find((m) => m.role === 'tool');
  if (result) return { content: `Order ${order} confirmed (${String(result.content)}).`, usage };
  if (prompt === V2 && order % 5 === 0) return { content: `Order ${order} needs no stamp.`, usage };
  return { toolCalls: [{ name: 'stamp', arguments: { order } }], usage };
};
