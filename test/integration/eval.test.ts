/**
 * `tiller eval`: 50 turns recorded on the scripted model under V1 (every turn stamps its order), then
 * evaluated under V2 (every fifth order is not stamped) — by the CLI for the turn ids, and by the library
 * for a folder of the same histories exported. Exactly the fifth orders are divergent; no tool runs
 * during the evaluation (the stamp tool's marks stay as the recording left them, and no worker polls);
 * the candidate's model read the recorded results.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import OpenAI from 'openai';
import { evaluate, EvalReport } from '../../src/eval';
import { runTiller } from '../support/clients';
import { createHarness, type Harness } from '../support/harness';
import { stamper, stamperScript, stampTool, V2 } from '../support/eval-agent';

jest.setTimeout(300_000);

let h: Harness;
let marks: string;
let folder: string;
const turnIds: string[] = [];
const orders = Array.from({ length: 50 }, (_, i) => i + 1);
const fifth = (n: number) => n % 5 === 0;

const markLines = () => fs.readFileSync(marks, 'utf8').trim().split('\n');

beforeAll(async () => {
  h = await createHarness({ script: stamperScript });
  marks = path.join(h.workspace, 'marks.txt');
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-eval-'));
  await h.withWorker(
    async () => {
      const started = await Promise.all(
        orders.map((n) => h.tiller.startTurn({ agent: 'stamper', input: `Please check order ${n}.` })),
      );
      turnIds.push(...started.map((s) => s.workflowId));
      for (const id of turnIds) expect((await h.tiller.result(id)).status).toBe('completed');
    },
    { agents: [stamper], tools: [stampTool(marks)] },
  );
  for (const id of turnIds) {
    const history = await h.client.workflow.getHandle(id).fetchHistory();
    fs.writeFileSync(path.join(folder, `${id}.json`), historyToJSON(history));
  }
});

afterAll(async () => {
  fs.rmSync(folder, { recursive: true, force: true });
  await h?.close();
});

test('the recording stamped all 50 orders', () => {
  expect(markLines()).toHaveLength(50);
});

test('tiller eval reports exactly the turns that no longer call the tool as divergent, running no tool', async () => {
  const before = fs.readFileSync(marks, 'utf8');
  h.model.requests.length = 0;
  const v2 = path.join(folder, 'v2.txt');
  fs.writeFileSync(v2, V2);
  const ran = await runTiller(h, ['eval', ...turnIds, '--instructions-file', v2, '--json', '--max-divergent', '0.1'], {
    OPENAI_BASE_URL: h.model.url,
    OPENAI_API_KEY: 'test',
  });
  const report = EvalReport.parse(JSON.parse(ran.stdout));
  // 10 of 50 diverge: 20% is past the 10% threshold, so the run fails.
  expect(ran.code).toBe(1);
  expect(report.failures).toEqual(['divergent turns: 20.0% > 10%']);
  const divergent = report.turns.filter((t) => t.divergent).map((t) => t.turnId);
  expect(divergent.sort()).toEqual(turnIds.filter((_, i) => fifth(orders[i]!)).sort());
  expect(report.totals).toMatchObject({ turns: 50, divergent: 10, toolCallsSame: 40, toolCallsDifferent: 10 });
  for (const t of report.turns) {
    const n = orders[turnIds.indexOf(t.turnId)]!;
    expect(t.candidateTools).toEqual(fifth(n) ? [] : ['stamp']);
    expect(t.answer).toBe(fifth(n) ? 'different' : 'exact');
    expect(t.divergentCalls).toEqual([]);
  }
  // No tool ran: the marks are the recording's, and the model read each turn's recorded result.
  expect(fs.readFileSync(marks, 'utf8')).toBe(before);
  const toolResults = h.model.requests
    .flatMap((r) => (r.body as { messages: { role: string; content: string }[] }).messages)
    .filter((m) => m.role === 'tool')
    .map((m) => m.content);
  expect(toolResults).toHaveLength(40);
  for (const line of markLines().filter((l) => !fifth(Number(l.split(' ')[1])))) {
    const [, order, nonce] = line.split(' ');
    expect(toolResults).toContain(`stamped ${order} as ${nonce}`);
  }
});

test('the library evaluates a folder of exported histories the same way, and passes with nothing changed', async () => {
  const model = { client: new OpenAI({ baseURL: h.model.url, apiKey: 'test', maxRetries: 0 }) };
  const candidate = await evaluate({ turns: { folder }, model, candidate: { instructions: V2 } });
  expect(candidate.turns.filter((t) => t.divergent)).toHaveLength(10);
  const same = await evaluate({ turns: { folder }, model, candidate: {}, thresholds: { maxDivergent: 0 } });
  expect(same.totals).toMatchObject({ turns: 50, divergent: 0, answersExact: 50 });
  expect(same.passed).toBe(true);
  expect(markLines()).toHaveLength(50);
});
