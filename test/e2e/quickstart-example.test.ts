/**
 * The README's "your own agent and tool" example, run as the README says (`npx tsx examples/quickstart/worker.ts`:
 * tsx's loader) as a process of its own (its `'@tiller-agents/tiller'` import resolved through tsconfig.json's path to src/index.ts),
 * configured by the environment only, against the run's dev server and the scripted model. A client starts
 * a `support` turn; the refund waits for a person, is approved, runs, and the audit hook prints.
 * test/unit/docs.test.ts checks that the README's block is this file, verbatim.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { TillerClient } from '../../src/client';
import { startScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model';
import { awaitingApproval, waitForState } from '../support/harness';
import { startChild, type Child } from '../support/processes';

jest.setTimeout(300_000);

const address = process.env.TILLER_TEST_TEMPORAL_ADDRESS!;
const taskQueue = `quickstart-${randomUUID()}`;
let model: ScriptedModel;
let worker: Child | undefined;
let connection: Connection;
let tiller: TillerClient;

beforeAll(async () => {
  // The model asks for one refund, then reports the tool's result back.
  model = await startScriptedModel({
    script: ({ body }) => {
      const tool = (body.messages as { role: string; content?: string }[]).find((m) => m.role === 'tool');
      return tool
        ? { content: `Refund done: ${tool.content}` }
        : { toolCalls: [{ id: 'refund-1', name: 'refund', arguments: { orderId: 'A-1001', cents: 1250 } }] };
    },
  });
  connection = await Connection.connect({ address });
  tiller = new TillerClient(new Client({ connection }), taskQueue);
});

afterAll(async () => {
  await worker?.kill('SIGKILL');
  await model?.close();
  await connection?.close();
});

test('examples/quickstart/worker.ts runs a turn whose refund a person approves', async () => {
  // `npx tsx <file>` runs the file in a child of its own; the same loader in one process, so a kill reaches it.
  worker = startChild(process.execPath, ['--require', 'tsx/cjs', 'examples/quickstart/worker.ts'], {
    TEMPORAL_ADDRESS: address,
    TEMPORAL_NAMESPACE: 'default',
    TILLER_TASK_QUEUE: taskQueue,
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'test',
    TILLER_MODEL: 'scripted',
  });
  await worker.waitFor(new RegExp(`worker ready on task queue ${taskQueue}`), 240_000);

  const turnId = `quickstart-${randomUUID().slice(0, 8)}`;
  await tiller.startTurn({ agent: 'support', input: 'Please refund 12.50 on order A-1001.', turnId });
  const waiting = await waitForState(tiller, turnId, awaitingApproval, 60_000);
  expect(waiting.pendingApprovals).toEqual([
    expect.objectContaining({ id: 'refund-1', tool: 'refund', args: { orderId: 'A-1001', cents: 1250 } }),
  ]);
  await tiller.approve(turnId, 'refund-1', { approver: 'quickstart-test' });

  const result = await tiller.result(turnId);
  expect(result.status).toBe('completed');
  expect(result.output).toMatch(/^Refund done: .*"orderId":"A-1001","cents":1250,"confirmation":"RF-/);
  await worker.waitFor(/audit: refund ran in [\d.]+ ms/, 30_000);
});
