/**
 * `tiller eval`'s library against llama.cpp's llama-server with a real model: turns recorded under V1
 * (each reads its order's file), evaluated under V2 (every fifth order answers without reading). The
 * wire tap steers which step calls `read_file` (support/wire-tap.ts: SmolLM2-135M never calls a tool on
 * its own), by the request's instructions, so the candidate's model is the real one, asked the real
 * questions. Exactly the fifth orders stop calling the tool (other turns may differ in the arguments the
 * model writes, and must say so); the files are deleted before the evaluation, and the
 * candidate's model still reads each recorded content: no tool ran.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import { defineAgent } from '../../src/agents/define';
import { evaluate } from '../../src/eval';
import { createRealHarness, type RealHarness } from './support/harness';
import { toolPlan } from './support/wire-tap';

jest.setTimeout(900_000);

const V1 = 'You read the order file the user names with read_file, then confirm the order.';
const V2 = 'You confirm orders; read the order file with read_file unless the order number is a multiple of five.';
const N = 20;
const orders = Array.from({ length: N }, (_, i) => i + 1);
const fifth = (n: number) => n % 5 === 0;
const input = (n: number) => `Confirm order ${n}: read order-${n}.txt.`;
const agent = defineAgent({
  name: 'orders',
  instructions: V1,
  tools: ['read_file'],
  onTruncated: 'accept',
  modelSettings: { maxTokens: 48, temperature: 0, seed: 42, parallelToolCalls: false },
});

let h: RealHarness;
const nonces: Record<number, string> = {};
const turnIds: string[] = [];

beforeAll(async () => {
  h = await createRealHarness();
  for (const n of orders) {
    nonces[n] = randomUUID().slice(0, 8);
    fs.writeFileSync(path.join(h.workspace, `order-${n}.txt`), `order ${n} nonce ${nonces[n]}`);
    h.tap.steer(input(n), (body) => {
      const system = (body.messages as { role: string; content: string }[]).find((m) => m.role === 'system')?.content;
      const plan = system === V2 && fifth(n) ? ['none'] : ['read_file', 'none'];
      return toolPlan(plan)(body);
    });
  }
  await h.withWorker([agent], async () => {
    for (const n of orders) {
      const { workflowId } = await h.tiller.startTurn({ agent: 'orders', input: input(n) });
      turnIds.push(workflowId);
      expect(await h.tiller.result(workflowId)).toMatchObject({ status: 'completed' });
    }
  });
  for (const n of orders) fs.rmSync(path.join(h.workspace, `order-${n}.txt`));
});

afterAll(async () => {
  await h?.close();
});

test('the real model under V2: exactly the fifth orders stop calling the tool, and no tool runs', async () => {
  const report = await evaluate({
    client: h.tiller.temporal,
    turns: { turnIds },
    model: {
      client: new OpenAI({
        baseURL: process.env.TILLER_TEST_LLAMA_URL,
        apiKey: 'none',
        // The evaluation asks once per call; a request the shared server drops under CI's load is asked again.
        maxRetries: 2,
        fetch: h.tap.fetch,
      }),
    },
    candidate: { instructions: V2 },
  });
  const byOrder = (t: (typeof report.turns)[number]) => orders[turnIds.indexOf(t.turnId)]!;
  // The turns that no longer call a tool are exactly the fifth orders, and each is divergent. The real
  // model writes the other calls' arguments itself, so some may differ: divergent with the difference said.
  const noTool = report.turns.filter((t) => t.candidateTools.length === 0).map(byOrder);
  expect(noTool.sort((a, b) => a - b)).toEqual(orders.filter(fifth));
  expect(report.turns.filter((t) => fifth(byOrder(t))).every((t) => t.divergent)).toBe(true);
  for (const t of report.turns.filter((x) => x.divergent && !fifth(byOrder(x))))
    expect(
      t.argDifferences.length + t.divergentCalls.length + Math.abs(t.candidateTools.length - t.recordedTools.length),
    ).toBeGreaterThan(0);
  // A turn the evaluation could not re-run names why (the real model's answer, or the server's refusal).
  expect(report.turns.filter((t) => t.candidate.error).map((t) => `${t.turnId}: ${t.candidate.error}`)).toEqual([]);
  expect(report.totals).toMatchObject({ turns: N, errors: 0 });
  // No tool ran: the files are gone, yet each call that matched the recording got the recorded content.
  for (const t of report.turns.filter((x) => !fifth(byOrder(x)) && x.divergentCalls.length === 0)) {
    const n = byOrder(t);
    const v2 = (await h.tap.exchanges(input(n))).filter((e) =>
      (e.body.messages as { role: string; content: string }[]).some((m) => m.role === 'system' && m.content === V2),
    );
    const toolMessages = v2.flatMap((e) =>
      (e.body.messages as { role: string; content: string }[]).filter((m) => m.role === 'tool'),
    );
    expect(toolMessages.map((m) => m.content).join('\n')).toContain(`nonce ${nonces[n]}`);
  }
});
