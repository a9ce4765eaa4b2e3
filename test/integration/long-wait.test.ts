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
import { createWorker } from '../../src/worker/create-worker';
import { awaitingApproval, bundle, quietRuntime, waitForState } from '../support/harness';
import { recordFixture } from '../support/fixtures';

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
const notifications: { tool: string; reminder: number; escalated: boolean; approvers?: string[] }[] = [];
const look = defineTool({ name: 'look', description: 'harmless', input: z.object({}), execute: () => 'looked' });
const oncall = defineAgent({
  name: 'oncall',
  instructions: 'careful',
  tools: ['drop_table', 'look'],
  stream: false,
  approvals: {
    drop_table: {
      timeout: '3 days',
      remindEvery: '1 day',
      approvers: ['dba-lead'],
      onTimeout: { escalate: { approvers: ['group:sre'], timeout: '1 day' } },
    },
    look: true,
  },
  hooks: [
    {
      name: 'pager',
      onApprovalPending: ({ call, reminder, escalated, approvers }) => {
        notifications.push({ tool: call.tool, reminder, escalated, ...(approvers && { approvers }) });
      },
    },
  ],
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
  notifications.length = 0;
  ran.length = 0;
  model.requests.length = 0;
});

const worker = () =>
  createWorker({
    connection: env.nativeConnection,
    taskQueue: 'long-wait',
    agents: [dba, oncall],
    tools: [drop, look],
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
    await recordFixture(env.client, 'expire-3d', 'approval-expired-3-days');
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

test('3 days with a reminder every day, then escalation to SRE for a day, then expiry; a late approval is rejected', async () => {
  model.setScript([
    {
      toolCalls: [
        { id: 'x1', name: 'drop_table', arguments: { table: 'orders' } },
        { id: 'x2', name: 'look', arguments: {} },
      ],
    },
    { content: 'handled' },
  ]);
  await (
    await worker()
  ).runUntil(async () => {
    await tiller.startTurn({ agent: 'oncall', input: 'drop orders', turnId: 'escalate' });
    const first = await waitForState(tiller, 'escalate', (s) => s.pendingApprovals.length === 2);
    const pending = first.pendingApprovals.find((p) => p.id === 'x1')!;
    expect(pending).toMatchObject({ approvers: ['dba-lead'], escalatesTo: ['group:sre'] });

    await env.sleep('3 days');
    await env.sleep('1 hour');
    const escalated = await tiller.state('escalate');
    const now = escalated.pendingApprovals.find((p) => p.id === 'x1')!;
    expect(now).toMatchObject({ approvers: ['group:sre'], escalated: true, reminders: 2 });
    await expect(tiller.approve('escalate', 'x1', { approver: 'dba-lead' })).rejects.toThrow(
      /dba-lead may not decide drop_table; allowed: group:sre/,
    );

    await env.sleep('1 day');
    const expired = await tiller.state('escalate');
    expect(expired.toolCalls.find((c) => c.id === 'x1')).toMatchObject({ status: 'timed_out' });
    await expect(
      tiller.decide('escalate', { id: 'x1', approved: true, approver: 'sam', approverGroups: ['sre'] }),
    ).rejects.toThrow(/tool call x1 is not pending \(status: timed_out\)/);

    await tiller.approve('escalate', 'x2');
    const result = await tiller.result('escalate');
    expect(result.status).toBe('completed');
    await recordFixture(env.client, 'escalate', 'remind-escalate-expire');
    const types = (await tiller.state('escalate')).events.map((e) => e.type);
    expect(types.filter((t) => t === 'APPROVAL_REMINDED')).toHaveLength(2);
    expect(types.filter((t) => t === 'APPROVAL_ESCALATED')).toHaveLength(1);
  });
  expect(ran).toEqual([]);
  expect(notifications.filter((n) => n.tool === 'drop_table')).toEqual([
    { tool: 'drop_table', reminder: 0, escalated: false, approvers: ['dba-lead'] },
    { tool: 'drop_table', reminder: 1, escalated: false, approvers: ['dba-lead'] },
    { tool: 'drop_table', reminder: 2, escalated: false, approvers: ['dba-lead'] },
    { tool: 'drop_table', reminder: 2, escalated: true, approvers: ['group:sre'] },
  ]);
  expect(toolMessage('x1')).toBe(
    'The approval request for drop_table expired after escalation to group:sre without a decision; the tool was not run.',
  );
});
