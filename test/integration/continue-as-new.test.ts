/**
 * A turn never dies of history size: past its history budget it continues as new at a quiet moment —
 * between model calls, or while every open call waits for a human — with the same workflow id, its
 * state, conversation, pending approvals and their deadlines. Clients notice nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHarness, waitForState, awaitingApproval, type Harness } from '../support/harness';
import { recordFixture } from '../support/fixtures';
import { defineAgent } from '../../src/agents/define';
import type { ApprovalResolvedHookContext, TillerHooks } from '../../src/agents/hooks';
import { WORKFLOW_TYPE_TURN } from '../../src/core/contract';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

/** Starts a turn with a small history budget (TillerClient does not expose it; the wire input does). */
async function start(turnId: string, maxHistoryEvents: number) {
  await h.client.workflow.start(WORKFLOW_TYPE_TURN, {
    taskQueue: h.taskQueue,
    workflowId: turnId,
    args: [{ agent: 'assistant', input: 'go', maxHistoryEvents }],
  });
}

/** Run ids of the turn's chain, first to last (from visibility's view of the workflow id). */
async function runs(turnId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const wf of h.client.workflow.list({ query: `WorkflowId = '${turnId}'` })) ids.push(wf.runId);
  return ids;
}

/**
 * Why workflow tasks of this run failed (none expected) — except `UnhandledCommand`: the server's own
 * answer when a signal arrives while the workflow closes the run, so the new events are seen first.
 */
async function failedWorkflowTasks(turnId: string, runId?: string): Promise<string[]> {
  const history = await h.client.workflow.getHandle(turnId, runId).fetchHistory();
  return (history.events ?? [])
    .flatMap((e) => (e.workflowTaskFailedEventAttributes ? [e.workflowTaskFailedEventAttributes.failure?.message] : []))
    .map((m) => m ?? 'failed')
    .filter((m) => m !== 'UnhandledCommand');
}

test('while a gated call waits, junk decisions grow the history: the turn continues as new and the call still waits, then runs once', async () => {
  const file = path.join(h.workspace, 'can-wait.txt');
  fs.writeFileSync(file, 'x\n');
  h.model.setScript([
    { toolCalls: [{ id: 'w1', name: 'delete_file', arguments: { path: 'can-wait.txt' } }] },
    { content: 'deleted' },
  ]);
  const turnId = h.turnId('can-wait');
  await h.withWorker(async () => {
    await start(turnId, 25); // a lean run pauses in ~17 events: the 12 signals pass 25
    const before = await waitForState(h.tiller, turnId, awaitingApproval);
    const firstRun = (await h.client.workflow.getHandle(turnId).describe()).runId;
    // Each rejected signal adds its own events; soon past the budget of 25.
    for (let i = 0; i < 12; i++) await h.tiller.signalDecision(turnId, { id: `nope-${i}`, approved: true });
    await waitForState(h.tiller, turnId, (s) => s.events.filter((e) => e.type === 'DECISION_REJECTED').length === 12);
    const described = await h.client.workflow.getHandle(turnId).describe();
    expect(described.runId).not.toBe(firstRun);
    expect((await h.client.workflow.getHandle(turnId, firstRun).describe()).status.name).toBe('CONTINUED_AS_NEW');

    const after = await h.tiller.state(turnId);
    expect(after.status).toBe('awaiting_approval');
    expect(after.pendingApprovals).toEqual(before.pendingApprovals);
    expect(after.eventCount).toBeGreaterThan(before.eventCount);
    expect(fs.existsSync(file)).toBe(true);

    await h.tiller.approve(turnId, 'w1', { approver: 'ops' });
    const result = await h.tiller.result(turnId);
    expect(result.status).toBe('completed');
    expect(result.output).toBe('deleted');
    expect(fs.existsSync(file)).toBe(false);
    const state = await h.tiller.state(turnId);
    expect(state.events.filter((e) => e.type === 'TOOL_STARTED')).toHaveLength(1);
    expect(state.toolCalls[0]).toMatchObject({ id: 'w1', status: 'succeeded', decision: { approver: 'ops' } });
    // The model saw one conversation: its request after the tool carries the original call and the result.
    const last = h.model.requests.at(-1)!.body.messages;
    expect(last.find((m: any) => m.role === 'tool' && m.tool_call_id === 'w1')).toBeDefined();
    const chain = await runs(turnId);
    for (const runId of chain) expect(await failedWorkflowTasks(turnId, runId)).toEqual([]);
    // Replay fixtures of both paths: the run that continued as new, and the run that resumed the wait (it may continue again).
    await recordFixture(h.client, turnId, 'continued-while-waiting-first-run', firstRun);
    await recordFixture(h.client, turnId, 'continued-while-waiting-second-run', described.runId);
  });
});

test('a waiting call keeps its deadline across runs: it expires when it was due, not later', async () => {
  h.model.setScript([
    { toolCalls: [{ id: 't1', name: 'delete_file', arguments: { path: 'nothing.txt' } }] },
    { content: 'expired' },
  ]);
  const turnId = h.turnId('can-deadline');
  await h.withWorker(
    async () => {
      await start(turnId, 25); // a lean run pauses in ~17 events: the 12 signals pass 25
      const before = await waitForState(h.tiller, turnId, awaitingApproval);
      const expiresAt = before.pendingApprovals[0]!.expiresAt!;
      const firstRun = (await h.client.workflow.getHandle(turnId).describe()).runId;
      for (let i = 0; i < 12; i++) await h.tiller.signalDecision(turnId, { id: `late-${i}`, approved: false });
      await waitForState(h.tiller, turnId, (s) => s.events.filter((e) => e.type === 'DECISION_REJECTED').length === 12);
      // `describe` (not visibility's list, which may not show the new run yet): the turn continued as new.
      expect((await h.client.workflow.getHandle(turnId).describe()).runId).not.toBe(firstRun);
      expect((await h.tiller.state(turnId)).pendingApprovals[0]!.expiresAt).toBe(expiresAt);
      const result = await h.tiller.result(turnId);
      expect(result.status).toBe('completed');
      const call = result.toolCalls[0]!;
      expect(call.status).toBe('timed_out');
      expect(Date.parse(call.endedAt!) - Date.parse(expiresAt)).toBeLessThan(3_000);
    },
    { agents: [assistantWithTimeout('8 seconds')] },
  );
});

test('a long turn continues as new between model calls; its answer, usage and conversation are whole', async () => {
  fs.writeFileSync(path.join(h.workspace, 'step.txt'), 'step\n');
  const steps = 6;
  h.model.setScript([
    ...Array.from({ length: steps }, (_, i) => ({
      toolCalls: [{ id: `s${i}`, name: 'read_file', arguments: { path: 'step.txt' } }],
      usage: { prompt_tokens: 10, completion_tokens: 1 },
    })),
    { content: 'all read', usage: { prompt_tokens: 10, completion_tokens: 1 } },
  ]);
  h.model.requests.length = 0;
  const turnId = h.turnId('can-steps');
  await h.withWorker(async () => {
    await start(turnId, 20);
    const result = await h.tiller.result(turnId);
    expect(result.status).toBe('completed');
    expect(result.output).toBe('all read');
    expect(result.usage).toEqual({ inputTokens: 70, outputTokens: 7, totalTokens: 77, modelCalls: 7 });
    expect(result.toolCalls.map((c) => c.id)).toEqual(Array.from({ length: steps }, (_, i) => `s${i}`));
    expect((await runs(turnId)).length).toBeGreaterThan(1);
    // The last model request has every earlier step: nothing was lost between runs.
    const messages = h.model.requests.at(-1)!.body.messages;
    expect(messages.filter((m: any) => m.role === 'tool')).toHaveLength(steps);
    expect(messages.filter((m: any) => m.role === 'assistant')).toHaveLength(steps);
  });
});

test("a hook's receipt is carried: no continue-as-new while its notification runs; onApprovalResolved gets it in the next run", async () => {
  h.model.setScript([
    { toolCalls: [{ id: 'r1', name: 'delete_file', arguments: { path: 'nothing-here.txt' } }] },
    { content: 'done' },
  ]);
  let post!: () => void;
  const posted = new Promise<void>((r) => (post = r));
  let notified!: () => void;
  const notifying = new Promise<void>((r) => (notified = r));
  let heard!: (ctx: ApprovalResolvedHookContext) => void;
  const resolved = new Promise<ApprovalResolvedHookContext>((r) => (heard = r));
  const chat: TillerHooks = {
    name: 'chat',
    // The message is "posted" only when the test says so: until then the notification is in flight.
    async onApprovalPending(ctx) {
      notified();
      await posted;
      return { channel: 'C1', ts: `posted-${ctx.reminder}` };
    },
    onApprovalResolved: (ctx) => heard(ctx),
  };
  const turnId = h.turnId('can-receipt');
  await h.withWorker(
    async () => {
      try {
        await receiptCarried();
      } finally {
        post(); // a failed expectation must not leave the hook (and the worker's shutdown) waiting
      }
    },
    { hooks: [chat] },
  );

  async function receiptCarried() {
    await start(turnId, 40);
    await waitForState(h.tiller, turnId, awaitingApproval);
    await notifying;
    const firstRun = (await h.client.workflow.getHandle(turnId).describe()).runId;
    for (let i = 0; i < 12; i++) await h.tiller.signalDecision(turnId, { id: `junk-${i}`, approved: true });
    await waitForState(h.tiller, turnId, (s) => s.events.filter((e) => e.type === 'DECISION_REJECTED').length === 12);
    // Past its budget, but the call's notification runs: the turn is not quiet, it stays in this run.
    expect(await runs(turnId)).toEqual([firstRun]);

    post();
    const next = await nextRun(turnId, firstRun);
    expect((await h.client.workflow.getHandle(turnId, firstRun).describe()).status.name).toBe('CONTINUED_AS_NEW');
    await h.tiller.approve(turnId, 'r1', { approver: 'ops' });
    const ctx = await resolved;
    expect(ctx).toMatchObject({ outcome: 'approved', decision: { approver: 'ops' }, call: { toolCallId: 'r1' } });
    // The receipt came back from the first run, once (the next run resumed the wait without a new request).
    expect(ctx.receipts).toEqual([{ channel: 'C1', ts: 'posted-0' }]);
    expect((await h.tiller.result(turnId)).status).toBe('completed');
    for (const runId of [firstRun, next]) expect(await failedWorkflowTasks(turnId, runId)).toEqual([]);
    // Replay fixtures: the run held back by its notification, and the run that took the carried wait first.
    await recordFixture(h.client, turnId, 'receipt-carried-first-run', firstRun);
    await recordFixture(h.client, turnId, 'receipt-carried-second-run', next);
  }
});

/** The run after `runId`, once the turn has continued as new (polls describe: the server's own view). */
async function nextRun(turnId: string, runId: string): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const current = (await h.client.workflow.getHandle(turnId).describe()).runId;
    if (current !== runId) return current;
    if (Date.now() > deadline) throw new Error(`${turnId} did not continue as new`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function assistantWithTimeout(timeout: `${number} seconds`) {
  return defineAgent({
    name: 'assistant',
    instructions: 'You help with files.',
    tools: ['read_file', 'delete_file'],
    approvals: { delete_file: { timeout } },
  });
}
