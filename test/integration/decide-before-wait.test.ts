/**
 * A decision that reaches a gated call while its preview or approval hook still runs (issue 34, item 1).
 * The race seen on main: the `decide` update reached the workflow in the same activation as the
 * `previewTool` result, ahead of it, and was refused "not pending (status: running)". Now the call is
 * "preparing" until its wait is raised: a decision for it is held until it waits, and refused — and
 * recorded — when its hook settles it without a human. The same for the answer gate's hook.
 *
 * The race is made, not hoped for: a workflow-only worker and an activity-only worker, the preview held
 * by a latch; the workflow worker stops, the preview ends, the decision is sent while no workflow worker
 * polls; a new workflow worker then gets both in one workflow task (the history proves it).
 *
 * Since `lean-turn` (issue 36) a new run previews in a local activity, inside a workflow task: the update
 * test starts its turn on the code before it (test/fixtures/bundles/workflows-before-lean-turn.js, where
 * the race was found) and finishes it on the current code; the signal test makes the race of a lean run.
 *
 * Fixtures (TILLER_RECORD_FIXTURES=1): each test records its turn on the new path (patch
 * `decide-before-wait`). `decide-before-wait-old-path` is the signal test's turn recorded on the code
 * before the fix (the signal refused "not pending (status: running)", no marker): it replays on the old path;
 * `decide-before-wait-signal` is the same test's turn before `lean-turn`.
 */
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { WorkflowUpdateStage } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import OpenAI from 'openai';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { withPayloadGuard } from '../../src/codec/guard';
import { decideUpdate, WORKFLOW_TYPE_TURN } from '../../src/core/contract';
import { Ask, Deny } from '../../src/core/policy';
import { ANSWER_TOOL } from '../../src/core/spec';
import { defineTool } from '../../src/tools/define';
import { setUpWorker } from '../../src/worker/setup';
import { recordFixture } from '../support/fixtures';
import { awaitingApproval, scriptByInput, useHarness, waitForState } from '../support/harness';

const h = useHarness();
const BEFORE_LEAN = { codePath: path.resolve(__dirname, '../fixtures/bundles/workflows-before-lean-turn.js') };
const EventType = temporal.api.enums.v1.EventType;

/** A gate that opens once: `open()` resolves `opened`. */
function latch(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Per test: the preview or hook has started (`entered`), and may finish (`release`). */
let entered = latch();
let release = latch();
beforeEach(() => {
  entered = latch();
  release = latch();
});

const slowWrite = defineTool({
  name: 'slow_write',
  description: 'Write a line; needs approval; its preview takes a while.',
  input: z.object({ text: z.string() }),
  async preview({ text }) {
    entered.open();
    await release.opened;
    return `would write ${text}`;
  },
  execute: async ({ text }) => `wrote ${text}`,
});
const gatekeeper = {
  name: 'slow-hook',
  async approveTool() {
    entered.open();
    await release.opened;
    return Deny('the hook says no');
  },
};
const answerKeeper = {
  name: 'slow-answer-hook',
  async approveAnswer() {
    entered.open();
    await release.opened;
    return Ask;
  },
};
const agents = [
  defineAgent({ name: 'previewed', instructions: 'x', tools: ['slow_write'], approvals: { slow_write: true } }),
  defineAgent({ name: 'hooked', instructions: 'x', tools: ['slow_write'], hooks: [gatekeeper] }),
];
const tools = [slowWrite];
const write = (id: string, input: string) =>
  scriptByInput({
    [input]: [{ toolCalls: [{ id, name: 'slow_write', arguments: { text: input } }] }, { content: 'done' }],
  });

/**
 * A worker that runs workflow tasks only (no cache: nothing sticky is left behind when it stops); on
 * `before`, the workflow code before `lean-turn`, whose preview is an activity (a lean run's is local).
 */
const workflowWorker = (before = false) =>
  h.worker({
    agents,
    tools,
    worker: { enableNonLocalActivities: false, maxCachedWorkflows: 0 },
    ...(before && { workflowBundle: BEFORE_LEAN }),
  });

/** A worker that runs activities only: the same activities a Tiller worker has, and no workflows. */
function activityWorker(): Promise<Worker> {
  const openai = new OpenAI({ baseURL: h.model.url, apiKey: 'test', maxRetries: 0 });
  const { activities } = setUpWorker({ agents, tools, openai, model: 'scripted', searchAttributes: false });
  return Worker.create({ connection: h.native, taskQueue: h.taskQueue, activities, dataConverter: withPayloadGuard() });
}

async function history(turnId: string): Promise<temporal.api.history.v1.IHistoryEvent[]> {
  return (await h.client.workflow.getHandle(turnId).fetchHistory()).events ?? [];
}

/** Polls the turn's history until `predicate` holds (what the server recorded, not a sleep). */
async function untilHistory(turnId: string, predicate: (events: temporal.api.history.v1.IHistoryEvent[]) => boolean) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const events = await history(turnId);
    if (predicate(events)) return events;
    if (Date.now() > deadline) throw new Error(`history of ${turnId} never matched`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Polls the server until it has admitted update `updateId` (it waits for a workflow worker to run it). */
async function untilAdmitted(turnId: string, updateId: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await h.client.workflowService.pollWorkflowExecutionUpdate({
        namespace: 'default',
        updateRef: { workflowExecution: { workflowId: turnId }, updateId },
        waitPolicy: {
          lifecycleStage:
            temporal.api.enums.v1.UpdateWorkflowExecutionLifecycleStage
              .UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED,
        },
      });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

const isPreviewCompleted =
  (events: temporal.api.history.v1.IHistoryEvent[]) => (e: temporal.api.history.v1.IHistoryEvent) => {
    if (e.eventType !== EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) return false;
    const scheduledId = Number(e.activityTaskCompletedEventAttributes?.scheduledEventId);
    const scheduled = events.find((s) => Number(s.eventId) === scheduledId);
    return scheduled?.activityTaskScheduledEventAttributes?.activityType?.name === 'previewTool';
  };

// Where the preview is an activity: a turn started before `lean-turn`, finished on the current code.
test('an update that arrives in the same workflow task as the preview, ahead of it, decides the call', async () => {
  h.model.setScript(write('w-1', 'race the preview'));
  const turnId = h.turnId('decide-before-wait');
  const activities = await activityWorker();
  const first = await workflowWorker(true);
  const activitiesRun = activities.run();
  const firstRun = first.run();
  try {
    await h.tiller.startTurn({ agent: 'previewed', input: 'race the preview', turnId });
    await entered.opened;
    // No workflow worker polls from here on: what follows waits at the server for the next one.
    first.shutdown();
    await firstRun;
    release.open();
    await untilHistory(turnId, (events) => events.some(isPreviewCompleted(events)));
    const updateId = `race-${turnId}`;
    const deciding = h.tiller.decide(turnId, { id: 'w-1', approved: true, approver: 'alice' }, updateId);
    deciding.catch(() => undefined);
    await untilAdmitted(turnId, updateId);

    const second = await workflowWorker();
    const [result, state] = await second.runUntil(async () => {
      await expect(deciding).resolves.toMatchObject({ id: 'w-1', approved: true, approver: 'alice', via: 'update' });
      const ended = await h.tiller.result(turnId);
      return [ended, await h.tiller.state(turnId)] as const;
    });
    expect(result).toMatchObject({ status: 'completed', output: 'done' });
    expect(state.toolCalls.map((c) => [c.id, c.status])).toEqual([['w-1', 'succeeded']]);
    expect(state.events.filter((e) => e.type === 'DECISION_REJECTED')).toEqual([]);

    // One workflow task took both: the preview's result is in history before that task started, and
    // the update was accepted when it completed, with no other workflow task completed in between.
    const events = await history(turnId);
    const at = (e: temporal.api.history.v1.IHistoryEvent) => events.indexOf(e);
    const preview = events.find(isPreviewCompleted(events))!;
    const accepted = events.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)!;
    expect(accepted.workflowExecutionUpdateAcceptedEventAttributes?.protocolInstanceId).toBe(updateId);
    const between = events.slice(at(preview) + 1, at(accepted)).map((e) => e.eventType);
    expect(between).toEqual([
      EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
      EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
      EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
    ]);
    await recordFixture(h.client, turnId, 'decide-before-wait-update');
  } finally {
    activities.shutdown();
    await activitiesRun;
  }
});

// A lean run previews in a local activity, inside a workflow task: a decision reaches it when core
// heartbeats that task (at 80 % of its timeout, shortened here) while the preview still runs.
test('a signal sent while the preview runs decides the call once it waits', async () => {
  h.model.setScript(write('w-2', 'signal the preview'));
  const turnId = h.turnId('decide-before-wait-signal');
  const state = await h.withWorker(
    async () => {
      await h.client.workflow.start(WORKFLOW_TYPE_TURN, {
        taskQueue: h.taskQueue,
        workflowId: turnId,
        args: [{ agent: 'previewed', input: 'signal the preview' }],
        workflowTaskTimeout: '2 seconds',
      });
      await entered.opened;
      await h.tiller.signalDecision(turnId, { id: 'w-2', approved: true, approver: 'alice' });
      await untilHistory(turnId, (events) =>
        events.some((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED),
      );
      // The signal's workflow task completes while the preview still runs.
      await untilHistory(turnId, (events) => {
        const signalled = events.findIndex((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
        return events.slice(signalled).some((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
      });
      release.open();
      // Today's code refused the signal ("not pending") and left the call waiting: finish it to read the turn.
      const waited = await waitForState(
        h.tiller,
        turnId,
        (s) => s.status !== 'running' || s.toolCalls[0]?.status === 'succeeded',
      );
      if (awaitingApproval(waited)) await h.tiller.approve(turnId, 'w-2', { approver: 'bob' });
      await h.tiller.result(turnId);
      return h.tiller.state(turnId);
    },
    { agents, tools },
  );
  await recordFixture(h.client, turnId, 'decide-before-wait-signal-lean');
  expect(state.events.filter((e) => e.type === 'DECISION_REJECTED')).toEqual([]);
  expect(state.toolCalls).toEqual([
    expect.objectContaining({
      id: 'w-2',
      status: 'succeeded',
      decision: expect.objectContaining({ approver: 'alice', via: 'signal' }),
    }),
  ]);
});

test('a call its hook settles never waits: decisions held for it are refused and recorded', async () => {
  h.model.setScript(write('w-3', 'the hook decides'));
  const turnId = h.turnId('decide-never-waited');
  const state = await h.withWorker(
    async () => {
      await h.tiller.startTurn({ agent: 'hooked', input: 'the hook decides', turnId });
      await entered.opened;
      const update = await h.client.workflow.getHandle(turnId).startUpdate(decideUpdate, {
        args: [{ id: 'w-3', approved: true, approver: 'alice' }],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      });
      await h.tiller.signalDecision(turnId, { id: 'w-3', approved: true, approver: 'bob' });
      await untilHistory(turnId, (events) =>
        events.some((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED),
      );
      release.open();
      await expect(update.result()).rejects.toMatchObject({
        cause: { message: expect.stringMatching(/tool call w-3 did not wait for a decision \(status: denied\)/) },
      });
      await h.tiller.result(turnId);
      return h.tiller.state(turnId);
    },
    { agents, tools },
  );
  await recordFixture(h.client, turnId, 'decide-never-waited');
  expect(state.toolCalls.map((c) => [c.id, c.status])).toEqual([['w-3', 'denied']]);
  expect(state.events.filter((e) => e.type === 'DECISION_REJECTED')).toEqual([
    expect.objectContaining({
      via: 'update',
      id: 'w-3',
      reason: expect.stringMatching(/did not wait for a decision \(status: denied\)/),
    }),
    expect.objectContaining({
      via: 'signal',
      id: 'w-3',
      reason: expect.stringMatching(/did not wait for a decision \(status: denied\)/),
    }),
  ]);
});

test("the answer gate: an update sent while the answer's hook runs decides the answer once it waits", async () => {
  h.model.setScript(scriptByInput({ 'answer me': [{ content: 'Here it is.' }] }));
  const turnId = h.turnId('answer-decided-before-wait');
  const hookedAnswer = defineAgent({ name: 'answered', instructions: 'x', tools: [], hooks: [answerKeeper] });
  const state = await h.withWorker(
    async () => {
      await h.tiller.startTurn({ agent: 'answered', input: 'answer me', turnId });
      await entered.opened;
      const update = await h.client.workflow.getHandle(turnId).startUpdate(decideUpdate, {
        args: [{ id: 'answer-1', approved: true, approver: 'alice' }],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      });
      release.open();
      await expect(update.result()).resolves.toMatchObject({ id: 'answer-1', approved: true, approver: 'alice' });
      await expect(h.tiller.result(turnId)).resolves.toMatchObject({ status: 'completed', output: 'Here it is.' });
      return h.tiller.state(turnId);
    },
    { agents: [...agents, hookedAnswer], tools },
  );
  await recordFixture(h.client, turnId, 'answer-decided-before-wait');
  expect(state.toolCalls.map((c) => [c.id, c.name, c.status])).toEqual([['answer-1', ANSWER_TOOL, 'succeeded']]);
  expect(state.events.filter((e) => e.type === 'DECISION_REJECTED')).toEqual([]);
});
