/**
 * Sub-agents: an agent calls another agent as a tool; the sub-agent runs as a child `agentTurn` with
 * its own policy (or its parent's too, with `inherit: true`), its waiting calls show in the parent's
 * state and in the inbox, its usage rolls up, and cancelling the parent cancels it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { bundle, useHarness, waitForState } from '../support/harness';
import { DecisionRejectedError } from '../../src/client';
import { subAgentTurnId } from '../../src/core/subagents';
import { turnProgressSignal } from '../../src/core/contract';
import {
  PLANNER,
  RESEARCHER,
  plannerDelegating,
  researcherDeleting,
  subAgentHelpers,
  toolMessage,
} from '../support/subagents-fixture';

const h = useHarness();
const { withWorker, script, requestsOf, waitForInbox } = subAgentHelpers(h);

test("the child's answer is the parent's tool result; a non-inheriting child runs under its own (ungated) policy", async () => {
  fs.writeFileSync(path.join(h.workspace, 'x.txt'), 'hi');
  script(plannerDelegating('research', 'delete x.txt'), researcherDeleting('x.txt'));
  const turnId = h.turnId('sub-result');
  const childId = subAgentTurnId(turnId, 'p1');
  const { result, parent, child, childDescription } = await withWorker(async () => {
    await h.tiller.startTurn({ agent: 'planner', input: 'tidy up', turnId });
    const result = await h.tiller.result(turnId);
    return {
      result,
      parent: await h.tiller.state(turnId),
      child: await h.tiller.state(childId),
      childDescription: await h.tiller.handle(childId).describe(),
    };
  });

  expect(result).toMatchObject({ status: 'completed', output: 'planner done' });
  // The model saw the sub-agent as a tool with `{ input }`, and got the child's final text back.
  const planner = requestsOf(PLANNER);
  expect(planner).toHaveLength(2);
  expect(planner[0]!.body.tools.map((t: any) => t.function.name)).toEqual([
    'read_file',
    'delete_file',
    'research',
    'research_under_my_rules',
  ]);
  expect(planner[0]!.body.tools[2].function.parameters).toMatchObject({
    properties: { input: { type: 'string' } },
    required: ['input'],
  });
  expect(toolMessage(planner[1]!.body, 'p1')).toBe('deleted x.txt');
  // The child got the task as its input, under its own instructions.
  const researcher = requestsOf(RESEARCHER);
  expect(researcher).toHaveLength(2);
  expect(researcher[0]!.body.messages.at(-1)).toEqual({ role: 'user', content: 'delete x.txt' });

  // delete_file is gated for the planner, not for the researcher: the child deleted without asking.
  expect(fs.existsSync(path.join(h.workspace, 'x.txt'))).toBe(false);
  expect(child.events.map((e) => e.type)).not.toContain('APPROVAL_REQUESTED');
  expect(child.toolCalls).toEqual([expect.objectContaining({ id: 'r1', name: 'delete_file', status: 'succeeded' })]);
  expect(childDescription.type).toBe('agentTurn');
  expect(childDescription.parentExecution?.workflowId).toBe(turnId);

  // Usage rolls up exactly: 2 planner calls (11+3, 13+4) and 2 researcher calls (7+2, 5+1).
  expect(child.usage).toEqual({ inputTokens: 12, outputTokens: 3, totalTokens: 15, modelCalls: 2 });
  expect(parent.usage).toEqual({ inputTokens: 36, outputTokens: 10, totalTokens: 46, modelCalls: 4 });
  expect(result.usage).toEqual(parent.usage);
  expect(parent.children).toEqual({
    [childId]: expect.objectContaining({
      turnId: childId,
      agent: 'researcher',
      tool: 'research',
      toolCallId: 'p1',
      inherit: false,
      status: 'completed',
      pendingApprovals: [],
      usage: child.usage,
    }),
  });
  expect(parent.toolCalls).toEqual([
    expect.objectContaining({ id: 'p1', name: 'research', status: 'succeeded', result: 'deleted x.txt' }),
  ]);
  expect(parent.events.map((e) => e.type)).toEqual([
    'AGENT_STARTED',
    'MODEL_CALLED',
    'TOOL_STARTED',
    'SUBAGENT_STARTED',
    'SUBAGENT_ENDED',
    'TOOL_ENDED',
    'MODEL_CALLED',
    'TURN_COMPLETED',
  ]);
});

test('an inheriting child pauses on the parent gate; its pending call shows in the parent state and the inbox, and is decided on the child', async () => {
  fs.writeFileSync(path.join(h.workspace, 'y.txt'), 'keep?');
  script(plannerDelegating('research_under_my_rules', 'delete y.txt'), researcherDeleting('y.txt'));
  const turnId = h.turnId('sub-inherit');
  const childId = subAgentTurnId(turnId, 'p1');
  await withWorker(async () => {
    await h.tiller.startTurn({ agent: 'planner', input: 'tidy up carefully', turnId });
    // The parent's state shows what its child waits for, and where to decide it.
    const waiting = await waitForState(h.tiller, turnId, (s) => !!s.children?.[childId]?.pendingApprovals.length);
    expect(waiting.status).toBe('running');
    expect(waiting.pendingApprovals).toEqual([]);
    expect(waiting.children?.[childId]).toMatchObject({
      status: 'awaiting_approval',
      inherit: true,
      pendingApprovals: [expect.objectContaining({ id: 'r1', tool: 'delete_file', args: { path: 'y.txt' } })],
    });
    expect(fs.existsSync(path.join(h.workspace, 'y.txt'))).toBe(true);
    // The typed client gathers the whole tree's waiting calls with the turn to decide each on.
    expect(await h.tiller.pendingTree(turnId)).toEqual([
      { turnId: childId, approval: expect.objectContaining({ id: 'r1', tool: 'delete_file' }) },
    ]);

    // The inbox (a visibility query on the search attributes) lists the child turn.
    const listed = await waitForInbox(childId);
    expect(listed).toMatchObject({ agent: 'researcher', status: 'awaiting_approval', pendingTools: ['delete_file'] });
  });
  // A new worker (empty cache) picks both turns up from their histories: nothing is counted twice.
  const { result, parent, child } = await withWorker(async () => {
    // The decision goes to the child turn; the parent does not know the id as its own.
    await expect(h.tiller.approve(turnId, 'r1')).rejects.toBeInstanceOf(DecisionRejectedError);
    await h.tiller.approve(childId, 'r1', { approver: 'alice' });
    const result = await h.tiller.result(turnId);
    return { result, parent: await h.tiller.state(turnId), child: await h.tiller.state(childId) };
  });

  expect(result).toMatchObject({ status: 'completed', output: 'planner done' });
  expect(fs.existsSync(path.join(h.workspace, 'y.txt'))).toBe(false);
  expect(child.status).toBe('completed');
  expect(child.toolCalls[0]).toMatchObject({
    id: 'r1',
    status: 'succeeded',
    decision: { approved: true, approver: 'alice' },
  });
  expect(parent.children?.[childId]).toMatchObject({ status: 'completed', pendingApprovals: [] });
  expect(parent.usage).toEqual({ inputTokens: 36, outputTokens: 10, totalTokens: 46, modelCalls: 4 });
  expect(parent.events.map((e) => e.type)).toEqual([
    'AGENT_STARTED',
    'MODEL_CALLED',
    'TOOL_STARTED',
    'SUBAGENT_STARTED',
    'SUBAGENT_PROGRESS',
    'SUBAGENT_PROGRESS',
    'SUBAGENT_ENDED',
    'TOOL_ENDED',
    'MODEL_CALLED',
    'TURN_COMPLETED',
  ]);

  // Both histories replay against the current workflow code (the progress signals included).
  const histories = await Promise.all(
    [turnId, childId].map(async (workflowId) => ({
      workflowId,
      history: await h.tiller.handle(workflowId).fetchHistory(),
    })),
  );
  const failures: string[] = [];
  for await (const replay of Worker.runReplayHistories({ workflowBundle: bundle() }, histories)) {
    if (replay.error) failures.push(`${replay.workflowId}: ${replay.error.message}`);
  }
  expect(failures).toEqual([]);
});

test('progress signals naming Object.prototype members find no child: ignored, nothing polluted or wedged', async () => {
  fs.writeFileSync(path.join(h.workspace, 'w.txt'), 'keep?');
  script(plannerDelegating('research_under_my_rules', 'delete w.txt'), researcherDeleting('w.txt'));
  const turnId = h.turnId('sub-proto-progress');
  const childId = subAgentTurnId(turnId, 'p1');
  const { parent, history } = await withWorker(async () => {
    await h.tiller.startTurn({ agent: 'planner', input: 'tidy up carefully', turnId });
    await waitForState(h.tiller, turnId, (s) => !!s.children?.[childId]?.pendingApprovals.length);
    const handle = h.tiller.handle(turnId);
    for (const id of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      await handle.signal(turnProgressSignal, {
        turnId: id,
        status: 'awaiting_approval',
        pendingApprovals: [{ id: 'x', tool: 'delete_file' }],
        usage: { inputTokens: 1e9, outputTokens: 0, totalTokens: 1e9, modelCalls: 1 },
      } as never); // what any client can send: the parent's check accepts a pending entry's id and tool
    }
    const seen = await h.tiller.state(turnId);
    const progress = seen.events.filter((e) => e.type === 'SUBAGENT_PROGRESS');
    expect(progress.map((e) => e.childTurnId)).toEqual(progress.map(() => childId));
    expect(Object.keys(seen.children ?? {})).toEqual([childId]);
    await h.tiller.approve(childId, 'r1');
    expect(await h.tiller.result(turnId)).toMatchObject({ status: 'completed' });
    return { parent: await h.tiller.state(turnId), history: await handle.fetchHistory() };
  });
  expect(history.events?.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
  expect(parent.usage.inputTokens).toBeLessThan(1e9);
  expect(parent.children?.[childId]).toMatchObject({ status: 'completed' });
});

test('cancelling the parent cancels the waiting child; both end cancelled with their state intact', async () => {
  fs.writeFileSync(path.join(h.workspace, 'z.txt'), 'stay');
  script(plannerDelegating('research_under_my_rules', 'delete z.txt'), researcherDeleting('z.txt'));
  const turnId = h.turnId('sub-cancel');
  const childId = subAgentTurnId(turnId, 'p1');
  const { parentError, childError, parent, child, childStatus } = await withWorker(async () => {
    await h.tiller.startTurn({ agent: 'planner', input: 'tidy up', turnId });
    await waitForState(h.tiller, childId, (s) => s.status === 'awaiting_approval');
    await h.tiller.cancel(turnId);
    const parentError = await h.tiller.result(turnId).catch((e: unknown) => e);
    const childError = await h.tiller.result(childId).catch((e: unknown) => e);
    return {
      parentError,
      childError,
      parent: await h.tiller.state(turnId),
      child: await h.tiller.state(childId),
      childStatus: (await h.tiller.handle(childId).describe()).status.name,
    };
  });

  for (const err of [parentError, childError]) {
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  }
  expect(childStatus).toBe('CANCELLED');
  expect(fs.existsSync(path.join(h.workspace, 'z.txt'))).toBe(true);
  expect(child.status).toBe('cancelled');
  expect(child.toolCalls[0]).toMatchObject({
    id: 'r1',
    status: 'failed',
    error: 'not completed: the turn was cancelled',
  });
  expect(parent.status).toBe('cancelled');
  expect(parent.events.at(-1)?.type).toBe('TURN_CANCELLED');
  expect(parent.toolCalls[0]).toMatchObject({ id: 'p1', name: 'research_under_my_rules', status: 'failed' });
  // The child's tokens up to its pause still count: its one model call (7+2) and the planner's first (11+3).
  expect(parent.children?.[childId]).toMatchObject({
    status: 'cancelled',
    pendingApprovals: [],
    usage: { inputTokens: 7, outputTokens: 2, totalTokens: 9, modelCalls: 1 },
  });
  expect(parent.usage).toEqual({ inputTokens: 18, outputTokens: 5, totalTokens: 23, modelCalls: 2 });
});

test('a child that fails is an error result the parent model reads; the parent carries on', async () => {
  script(plannerDelegating('research', 'look something up'), [
    { error: { status: 400, message: 'the researcher model rejects this request' } },
  ]);
  const turnId = h.turnId('sub-fail');
  const childId = subAgentTurnId(turnId, 'p1');
  const { result, parent, child } = await withWorker(async () => {
    await h.tiller.startTurn({ agent: 'planner', input: 'find out', turnId });
    const result = await h.tiller.result(turnId);
    return { result, parent: await h.tiller.state(turnId), child: await h.tiller.result(childId) };
  });

  expect(child.status).toBe('failed');
  expect(result).toMatchObject({ status: 'completed', output: 'planner done' });
  const seen = toolMessage(requestsOf(PLANNER)[1]!.body, 'p1');
  expect(seen).toMatch(/^Error: sub-agent research failed: model call 1 failed: .*rejects this request/);
  expect(parent.toolCalls[0]).toMatchObject({ id: 'p1', status: 'failed', error: seen });
  expect(parent.children?.[childId]).toMatchObject({ status: 'failed', error: child.error });
  expect(parent.usage).toEqual({ inputTokens: 24, outputTokens: 7, totalTokens: 31, modelCalls: 2 });
});
