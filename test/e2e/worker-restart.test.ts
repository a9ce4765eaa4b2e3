/**
 * kill -9 the worker while a turn waits for approval: a new worker process answers `state`
 * identically (rebuilt by replay, nothing re-seeded), the approval resumes the turn, and usage is
 * the exact sum of every model call, before and after the pause.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { TillerClient } from '../../src/client';
import { startScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model';
import { awaitingApproval, waitForState } from '../support/harness';
import { startTsChild, type Child } from '../support/processes';

let model: ScriptedModel;
let connection: Connection;
let tiller: TillerClient;
let workspace: string;
const children: Child[] = [];
const taskQueue = `restart-${randomUUID()}`;

beforeAll(async () => {
  model = await startScriptedModel();
  connection = await Connection.connect({ address: process.env.TILLER_TEST_TEMPORAL_ADDRESS! });
  tiller = new TillerClient(new Client({ connection }), taskQueue);
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-restart-'));
});
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill()));
  await model.close();
  await connection.close();
  fs.rmSync(workspace, { recursive: true, force: true });
});

async function worker(): Promise<Child> {
  const child = startTsChild('test/support/worker-main.ts', {
    TEMPORAL_ADDRESS: process.env.TILLER_TEST_TEMPORAL_ADDRESS,
    TILLER_TASK_QUEUE: taskQueue,
    OPENAI_BASE_URL: model.url,
    TILLER_WORKSPACE: workspace,
    TILLER_WORKFLOW_BUNDLE: process.env.TILLER_TEST_BUNDLE,
  });
  children.push(child);
  await child.waitFor(/^ready$/m);
  return child;
}

test('a new worker serves the same state after kill -9, and usage is exact across the pause', async () => {
  fs.writeFileSync(path.join(workspace, 'report.txt'), 'quarterly numbers');
  // Streamed calls (the demo agent streams); each usage appears once in the stream.
  model.setScript([
    {
      toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'report.txt' } }],
      usage: { prompt_tokens: 120, completion_tokens: 9 },
    },
    {
      toolCalls: [{ id: 'r2', name: 'delete_file', arguments: { path: 'report.txt' } }],
      usage: { prompt_tokens: 160, completion_tokens: 12 },
    },
    { content: 'deleted the report', usage: { prompt_tokens: 190, completion_tokens: 6 } },
  ]);
  const first = await worker();
  const turnId = `restart-${randomUUID().slice(0, 8)}`;
  await tiller.startTurn({ agent: 'assistant', input: 'read report.txt and delete it', turnId });
  const before = await waitForState(tiller, turnId, awaitingApproval);
  expect(before.usage).toEqual({ inputTokens: 280, outputTokens: 21, totalTokens: 301, modelCalls: 2 });

  await first.kill('SIGKILL');
  await worker();
  const after = await waitForState(tiller, turnId, () => true);
  expect(after).toEqual(before);

  await tiller.approve(turnId, 'r2', { approver: 'after-restart' });
  const result = await tiller.result(turnId);
  expect(result.status).toBe('completed');
  expect(result.output).toBe('deleted the report');
  expect(result.usage).toEqual({ inputTokens: 470, outputTokens: 27, totalTokens: 497, modelCalls: 3 });
  expect(fs.existsSync(path.join(workspace, 'report.txt'))).toBe(false);
  expect(model.requests).toHaveLength(3);
});
