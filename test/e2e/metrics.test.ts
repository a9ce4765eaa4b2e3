/**
 * Prometheus metrics: `tiller worker` with TILLER_METRICS_ADDRESS serves the Temporal runtime's
 * metrics and Tiller's counters (approvals requested / decided / timed out, denials, tokens); a scrape
 * after one approved, one denied and one trusted call shows exactly those: only a person's decision
 * counts as decided.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { TillerClient } from '../../src/client';
import { demoScript, startScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model';
import { awaitingApproval, waitForState } from '../support/harness';
import { ROOT, startChild, type Child } from '../support/processes';

const address = process.env.TILLER_TEST_TEMPORAL_ADDRESS!;
const taskQueue = `metrics-${randomUUID()}`;

let model: ScriptedModel;
let connection: Connection;
let tiller: TillerClient;
let workspace: string;
let worker: Child;
let metricsUrl: string;

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

beforeAll(async () => {
  model = await startScriptedModel({ script: demoScript() });
  connection = await Connection.connect({ address });
  tiller = new TillerClient(new Client({ connection }), taskQueue);
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-metrics-'));
  const port = await freePort();
  metricsUrl = `http://127.0.0.1:${port}/metrics`;
  worker = startChild(process.execPath, [path.join(ROOT, 'bin/tiller.js'), 'worker'], {
    TEMPORAL_ADDRESS: address,
    TILLER_TASK_QUEUE: taskQueue,
    TILLER_FROM_SOURCE: '1',
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'test',
    TILLER_MODEL: 'scripted',
    TILLER_WORKSPACE: workspace,
    TILLER_WORKFLOW_BUNDLE: process.env.TILLER_TEST_BUNDLE,
    TILLER_METRICS_ADDRESS: `127.0.0.1:${port}`,
  });
  await worker.waitFor(new RegExp(`worker polling task queue ${taskQueue}`), 90_000);
}, 120_000);

afterAll(async () => {
  await worker?.kill('SIGKILL');
  await model?.close();
  await connection?.close();
  if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
});

/** Sum of a metric's samples whose labels include all of `labels`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})? ([0-9.eE+-]+)$/.exec(line);
    if (!m || !m[1]!.startsWith(name)) continue;
    const rest = m[1]!.slice(name.length);
    if (rest && !/^(_\w+)?_total$/.test(rest)) continue;
    if (Object.entries(labels).every(([k, v]) => (m[2] ?? '').includes(`${k}="${v}"`))) sum += Number(m[3]);
  }
  return sum;
}

test('a scrape shows the runtime metrics and Tiller’s counters', async () => {
  const run = async (file: string, approve: boolean) => {
    fs.writeFileSync(path.join(workspace, file), 'x\n');
    const turnId = `metrics-${randomUUID().slice(0, 8)}`;
    await tiller.startTurn({ agent: 'assistant', input: `Read ${file}, then delete it.`, turnId });
    const paused = await waitForState(tiller, turnId, awaitingApproval);
    const id = paused.pendingApprovals[0]!.id;
    await (approve ? tiller.approve(turnId, id) : tiller.deny(turnId, id, { reason: 'no' }));
    expect((await tiller.result(turnId)).status).toBe('completed');
    return tiller.state(turnId);
  };
  const a = await run('one.txt', true);
  const b = await run('two.txt', false);
  // Approved by a trust grant, not by a person: not a decision for the metrics.
  fs.writeFileSync(path.join(workspace, 'three.txt'), 'x\n');
  const trustedId = `metrics-${randomUUID().slice(0, 8)}`;
  const trust = [{ tool: 'delete_file', scope: 'turn' as const }];
  await tiller.startTurn({ agent: 'assistant', input: 'Read three.txt, then delete it.', turnId: trustedId, trust });
  expect((await tiller.result(trustedId)).status).toBe('completed');
  const c = await tiller.state(trustedId);
  expect(c.toolCalls.find((t) => t.name === 'delete_file')?.decision?.via).toBe('trust');
  const tokens = [a, b, c].reduce((sum, s) => sum + s.usage.inputTokens + s.usage.outputTokens, 0);

  const deadline = Date.now() + 30_000;
  let text: string;
  for (;;) {
    text = await (await fetch(metricsUrl)).text();
    if (sample(text, 'tiller_tokens') >= tokens || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  expect(text).toMatch(/^temporal_\w+/m); // the runtime's own
  expect(sample(text, 'tiller_approvals_requested', { tool: 'delete_file', agent: 'assistant' })).toBe(2);
  expect(sample(text, 'tiller_approvals_decided', { approved: 'true' })).toBe(1);
  expect(sample(text, 'tiller_approvals_decided', { approved: 'false' })).toBe(1);
  expect(sample(text, 'tiller_denials', { source: 'human' })).toBe(1);
  expect(sample(text, 'tiller_approvals_timed_out')).toBe(0);
  expect(sample(text, 'tiller_tokens')).toBe(tokens);
  expect(sample(text, 'tiller_tokens', { kind: 'input', model: 'scripted' })).toBe(
    a.usage.inputTokens + b.usage.inputTokens + c.usage.inputTokens,
  );
});
