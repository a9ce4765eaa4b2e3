/**
 * Approvals that wait for days, on the time-skipping test server: a 3-day deadline expires in
 * milliseconds of test time, and a decision on day 2 of 3 still resumes the turn.
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import OpenAI from 'openai';
import { z } from 'zod';
import { TillerClient } from '../../src/client';
import { defineAgent } from '../../src/agents/define';
import { defineTool } from '../../src/tools/define';
import { startScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model';
import { createWorker } from '../../src/worker';
import { awaitingApproval, bundle, quietRuntime, waitForState } from '../support/harness';

let env: TestWorkflowEnvironment;
let model: ScriptedModel;
let tiller: TillerClient;
const ran: number[] = [];

const drop = defineTool({
  name: 'drop_table',
  description: 'drops a table',
  input: z.object({ table: z.string() }),
  execute: ({ table }) => {
    ran.push(Date.now());
    return `dropped ${table}`;
  },
});
const dba = defineAgent({
  name: 'dba',
  instructions: 'careful',
  tools: ['drop_table'],
  approvals: { drop_table: { timeout: '3 days' } },
  stream: false,
});

beforeAll(async () => {
  quietRuntime();
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: process.env.TILLER_TEST_TIME_SKIPPING_SERVER! } },
  });
  model = await startScriptedModel();
  tiller = new TillerClient(env.client, 'long-wait');
});
afterAll(async () => {
  await model.close();
  await env?.teardown();
});
beforeEach(() => {
  ran.length = 0;
  model.requests.length = 0;
});

const worker = () =>
  createWorker({
    connection: env.nativeConnection,
    taskQueue: 'long-wait',
    agents: [dba],
    tools: [drop],
    openai: new OpenAI({ baseURL: model.url, apiKey: 'test', maxRetries: 0 }),
    model: 'scripted',
    workflowBundle: bundle(),
    // The Java time-skipping server does not take custom search attributes.
    searchAttributes: false,
  });

const script = () => [
  { toolCalls: [{ id: 'd1', name: 'drop_table', arguments: { table: 'users' } }] },
  { content: 'handled' },
];
const toolMessage = (id: string) =>
  model.requests[1]!.body.messages.find((m: any) => m.role === 'tool' && m.tool_call_id === id)?.content;

test('a 3-day approval deadline expires: timed_out, the model is told, the tool never runs', async () => {
  model.setScript(script());
  await (
    await worker()
  ).runUntil(async () => {
    await tiller.startTurn({ agent: 'dba', input: 'drop users', turnId: 'expire-3d' });
    const paused = await waitForState(tiller, 'expire-3d', awaitingApproval);
    const pending = paused.pendingApprovals[0]!;
    expect(Date.parse(pending.expiresAt!) - Date.parse(pending.requestedAt)).toBe(3 * 24 * 3600 * 1000);
    const result = await tiller.result('expire-3d');
    expect(result.status).toBe('completed');
    expect(result.toolCalls[0]).toMatchObject({ status: 'timed_out' });
    const ended = Date.parse(result.toolCalls[0]!.endedAt!);
    expect(ended - Date.parse(pending.requestedAt)).toBeGreaterThanOrEqual(3 * 24 * 3600 * 1000);
  });
  expect(ran).toEqual([]);
  expect(toolMessage('d1')).toBe(
    'The approval request for drop_table expired after 3 days without a decision; the tool was not run.',
  );
});

test('an approval on day 2 of 3 resumes the turn', async () => {
  model.setScript(script());
  await (
    await worker()
  ).runUntil(async () => {
    await tiller.startTurn({ agent: 'dba', input: 'drop users', turnId: 'approve-day-2' });
    const paused = await waitForState(tiller, 'approve-day-2', awaitingApproval);
    await env.sleep('2 days');
    const still = await tiller.state('approve-day-2');
    expect(still.status).toBe('awaiting_approval');
    await tiller.approve('approve-day-2', 'd1', { approver: 'monday-person' });
    const result = await tiller.result('approve-day-2');
    expect(result.toolCalls[0]).toMatchObject({ status: 'succeeded', result: 'dropped users' });
    const decidedAt = Date.parse(result.toolCalls[0]!.decision!.at);
    expect(decidedAt - Date.parse(paused.pendingApprovals[0]!.requestedAt)).toBeGreaterThanOrEqual(
      2 * 24 * 3600 * 1000,
    );
  });
  expect(ran).toHaveLength(1);
});
