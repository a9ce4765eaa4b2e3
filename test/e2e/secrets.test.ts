/**
 * The model API key never reaches history, events, worker logs or a client's error — even when a
 * hostile or chatty endpoint echoes it back in an error message.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { TillerClient } from '../../src/client';
import { startScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model';
import { ROOT, startChild, type Child } from '../support/processes';

const KEY = `sk-canary-${randomBytes(12).toString('hex')}`;
const address = process.env.TILLER_TEST_TEMPORAL_ADDRESS!;
const taskQueue = `secrets-${randomUUID()}`;
let model: ScriptedModel;
let connection: Connection;
let tiller: TillerClient;
let worker: Child;
let workspace: string;

beforeAll(async () => {
  model = await startScriptedModel();
  connection = await Connection.connect({ address });
  tiller = new TillerClient(new Client({ connection }), taskQueue);
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-secrets-'));
  worker = startChild(process.execPath, [path.join(ROOT, 'bin/tiller.js'), 'worker'], {
    TEMPORAL_ADDRESS: address,
    TILLER_TASK_QUEUE: taskQueue,
    TILLER_FROM_SOURCE: '1',
    TILLER_LOG_LEVEL: 'INFO',
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: KEY,
    TILLER_MODEL: 'scripted',
    TILLER_WORKSPACE: workspace,
    TILLER_WORKFLOW_BUNDLE: process.env.TILLER_TEST_BUNDLE,
  });
  await worker.waitFor(/worker polling task queue/, 90_000);
});
afterAll(async () => {
  await worker?.kill('SIGKILL');
  await model?.close();
  await connection?.close();
  fs.rmSync(workspace, { recursive: true, force: true });
});

test('an endpoint that echoes the API key in its errors does not leak it anywhere Tiller writes', async () => {
  model.setScript([
    { error: { status: 503, message: `upstream hiccup for key ${KEY}`, headers: { 'retry-after-ms': '10' } } },
    { error: { status: 401, message: `Incorrect API key provided: ${KEY}` } },
  ]);
  const turnId = `secrets-${randomUUID().slice(0, 8)}`;
  await tiller.startTurn({ agent: 'assistant', input: 'hello', turnId });
  const result = await tiller.result(turnId);
  expect(result.status).toBe('failed');
  expect(result.error).toMatch(
    /ModelAuthError: model endpoint answered 401: .*Incorrect API key provided: \[redacted\]/,
  );
  // The key did reach the endpoint (so the test would see a leak): it is the bearer token.
  expect(model.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);

  const history = JSON.stringify(await tiller.handle(turnId).fetchHistory(), (_k, v) =>
    v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v,
  );
  expect(history).toContain('[redacted]');
  expect(history).not.toContain(KEY);
  expect(JSON.stringify(await tiller.state(turnId))).not.toContain(KEY);
  expect(worker.output()).not.toContain(KEY);
});
