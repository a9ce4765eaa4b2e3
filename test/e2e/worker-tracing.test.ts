/**
 * Tracing as the Docker image runs it: `scripts/build-workflow-bundle.ts --traced` writes the plain
 * bundle and its traced twin; `tiller worker` with TILLER_WORKFLOW_BUNDLE and OTEL_TRACES_EXPORTER
 * picks the twin (the plain bundle has no workflow interceptors) and exports the turn's spans — the
 * workflow's, the activities', and the GenAI model and tool spans — flushing them on SIGTERM.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { TillerClient } from '../../src/client';
import { demoScript, startScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model';
import { awaitingApproval, waitForState } from '../support/harness';
import { ROOT, startChild, type Child } from '../support/processes';

const address = process.env.TILLER_TEST_TEMPORAL_ADDRESS!;
const taskQueue = `tracing-cli-${randomUUID()}`;

let model: ScriptedModel;
let connection: Connection;
let tiller: TillerClient;
let dir: string;
let worker: Child | undefined;

beforeAll(async () => {
  model = await startScriptedModel({ script: demoScript() });
  connection = await Connection.connect({ address });
  tiller = new TillerClient(new Client({ connection }), taskQueue);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-tracing-cli-'));
  fs.mkdirSync(path.join(dir, 'workspace'));
  await promisify(execFile)(
    process.execPath,
    ['--require', 'tsx/cjs', 'scripts/build-workflow-bundle.ts', path.join(dir, 'workflow-bundle.js'), '--traced'],
    { cwd: ROOT },
  );
}, 180_000);

afterAll(async () => {
  await worker?.kill('SIGKILL');
  await model?.close();
  await connection?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('the build writes both bundles; the traced worker runs the twin and exports every span', async () => {
  expect(fs.existsSync(path.join(dir, 'workflow-bundle.js'))).toBe(true);
  expect(fs.existsSync(path.join(dir, 'workflow-bundle.traced.js'))).toBe(true);

  worker = startChild(process.execPath, [path.join(ROOT, 'bin/tiller.js'), 'worker'], {
    TEMPORAL_ADDRESS: address,
    TILLER_TASK_QUEUE: taskQueue,
    TILLER_FROM_SOURCE: '1',
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'test',
    TILLER_MODEL: 'scripted',
    TILLER_WORKSPACE: path.join(dir, 'workspace'),
    TILLER_WORKFLOW_BUNDLE: path.join(dir, 'workflow-bundle.js'),
    OTEL_TRACES_EXPORTER: 'console',
    OTEL_SERVICE_NAME: 'tiller-e2e',
  });
  await worker.waitFor(new RegExp(`worker polling task queue ${taskQueue}`), 90_000);
  expect(worker.output()).toContain('tracing: OpenTelemetry, exporter console');
  expect(worker.output()).not.toContain('bundling workflows');

  fs.writeFileSync(path.join(dir, 'workspace', 'notes.txt'), 'x\n');
  const turnId = `tracing-cli-${randomUUID().slice(0, 8)}`;
  await tiller.startTurn({ agent: 'assistant', input: 'Read notes.txt, then delete it.', turnId });
  const paused = await waitForState(tiller, turnId, awaitingApproval);
  await tiller.approve(turnId, paused.pendingApprovals[0]!.id);
  expect((await tiller.result(turnId)).status).toBe('completed');

  // SIGTERM: the worker stops and flushes what is left.
  await worker.kill('SIGTERM');
  const out = worker.output();
  for (const name of [
    'RunWorkflow:agentTurn',
    'RunActivity:callModel',
    'chat scripted',
    'execute_tool read_file',
    'execute_tool delete_file',
  ])
    expect(out).toContain(`'${name}'`);
  expect(out).toContain(`'tiller-e2e'`);
  expect(out).toContain(turnId);
}, 120_000);
