/**
 * The fast path: read-only tools (`defineTool({ readOnly: true })`, MCP tools with `readOnlyHint`) run as
 * local activities unless they opt out, so a step of model call + read-only tool is one workflow task
 * and at most 7 history events. Cancellation and timeouts still reach them; turns recorded before the
 * fast path replay on their recorded path (the patch).
 */
import fs from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { defineTool } from '../../src/tools/define';
import { PATCH_READ_ONLY_LOCAL } from '../../src/workflows/patches';
import { startHttpMcpServer, type HttpMcpServer } from '../fixtures/mcp/server';
import { FIXTURE_DIR, fixtureWorkflowIds, recordFixture } from '../support/fixtures';
import { bundle, createHarness, type Harness } from '../support/harness';
import { localActivity } from '../support/history';

const EventType = temporal.api.enums.v1.EventType;

let h: Harness;
let web: HttpMcpServer;
beforeAll(async () => {
  h = await createHarness();
  web = await startHttpMcpServer();
});
afterAll(async () => {
  await web?.close();
  await h?.close();
});

const lookup = defineTool({
  name: 'lookup',
  description: 'reads',
  input: z.object({ n: z.number() }),
  readOnly: true,
  execute: ({ n }) => `value ${n}`,
});
const lookupRemote = defineTool({ ...lookup, name: 'lookup_remote', local: false });
const lookupHeartbeats = defineTool({ ...lookup, name: 'lookup_heartbeats', heartbeatTimeout: '20 seconds' });

const seen: string[] = [];
let started: () => void = () => undefined;
let aborted: () => void = () => undefined;
const waiting = defineTool({
  name: 'waiting',
  description: 'reads until aborted',
  input: z.object({}),
  readOnly: true,
  timeout: '1 minute',
  execute: async (_args, ctx) => {
    seen.push('started');
    started();
    while (!ctx.signal.aborted) await new Promise((r) => setTimeout(r, 20));
    seen.push('aborted');
    aborted();
    throw new Error('aborted');
  },
});
const stuck = defineTool({
  name: 'stuck',
  description: 'never answers in time',
  input: z.object({}),
  readOnly: true,
  timeout: '300 milliseconds',
  execute: async (_args, ctx) => {
    seen.push('attempt');
    while (!ctx.signal.aborted) await new Promise((r) => setTimeout(r, 20));
    seen.push('timed out');
    throw new Error('too late');
  },
});

const tools = [lookup, lookupRemote, lookupHeartbeats, waiting, stuck];
const agent = (name: string, toolNames: string[]) =>
  defineAgent({ name, instructions: 'x', tools: toolNames, maxModelCalls: 100 });
const agents = [
  agent('reader', ['lookup']),
  agent('reader_remote', ['lookup_remote', 'lookup_heartbeats']),
  agent('waiter', ['waiting', 'stuck']),
  // create_ticket has no read-only hint, so MCP's defaults would gate it: opted out, this test is about the path.
  defineAgent({
    name: 'desk_reader',
    instructions: 'x',
    tools: ['web__list_tickets', 'web__create_ticket'],
    approvals: { web__create_ticket: false },
  }),
  agent('slow_desk_reader', ['slow__list_tickets']),
];
const worker = () =>
  h.worker({
    agents,
    tools,
    mcpServers: [
      { name: 'web', url: web.url },
      // The same server, with its read-only tool kept a regular activity.
      { name: 'slow', url: web.url, runAsActivity: ['list_tickets'] },
    ],
  });

async function events(turnId: string) {
  return (await h.client.workflow.getHandle(turnId).fetchHistory()).events ?? [];
}

const scheduled = (e: temporal.api.history.v1.IHistoryEvent) =>
  e.activityTaskScheduledEventAttributes?.activityType?.name;
/** The tools run as local activities (a lean run's `startTurn` is one too). */
const localTools = (evs: temporal.api.history.v1.IHistoryEvent[]) =>
  evs.flatMap((e) => (localActivity(e)?.type === 'runTool' ? ['runTool'] : []));
const markers = (evs: temporal.api.history.v1.IHistoryEvent[]) =>
  evs.flatMap((e) => (e.markerRecordedEventAttributes ? [e.markerRecordedEventAttributes.markerName] : []));

test('a step of model call + read-only tool is one workflow task and at most 7 history events', async () => {
  const steps = 5;
  h.model.setScript([
    ...Array.from({ length: steps }, (_, i) => ({ toolCalls: [{ id: `c${i}`, name: 'lookup', arguments: { n: i } }] })),
    { content: 'done' },
  ]);
  const turnId = h.turnId('fast');
  await (
    await worker()
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'reader', input: 'go', turnId });
    const result = await h.tiller.result(turnId);
    expect(result.status).toBe('completed');
    expect(result.toolCalls.map((c) => c.result)).toEqual([0, 1, 2, 3, 4].map((n) => `value ${n}`));
  });
  await recordFixture(h.client, turnId, 'read-only-tools-local');
  const evs = await events(turnId);
  expect(evs.filter((e) => scheduled(e) === 'runTool')).toHaveLength(0);
  const ms = markers(evs);
  // One per read-only call, and the lean run's `startTurn`; one patch marker: lean-turn, which stands
  // for conversation-by-reference and the fast path.
  expect(evs.flatMap((e) => localActivity(e)?.type ?? [])).toEqual(['startTurn', ...Array(steps).fill('runTool')]);
  expect(ms.filter((m) => m === 'core_patch')).toHaveLength(1);
  // From one model call's scheduling to the next: the events of one tool step.
  const modelAt = evs.flatMap((e, i) => (scheduled(e) === 'callModel' ? [i] : []));
  expect(modelAt).toHaveLength(steps + 1);
  const perStep = modelAt.slice(1).map((at, k) => evs.slice(modelAt[k], at));
  for (const step of perStep.slice(1)) {
    expect(step.length).toBeLessThanOrEqual(7);
    expect(step.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)).toHaveLength(1);
  }
  // The first step also carries the one-time events: the patch marker and a search attribute upsert.
  const oneTime = (e: temporal.api.history.v1.IHistoryEvent) =>
    e.markerRecordedEventAttributes?.markerName === 'core_patch' ||
    e.eventType === EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES;
  expect(perStep[0]!.filter((e) => !oneTime(e)).length).toBeLessThanOrEqual(7);
});

test('`local: false` and a heartbeat timeout keep a read-only tool a regular activity', async () => {
  h.model.setScript([
    {
      toolCalls: [
        { id: 'r1', name: 'lookup_remote', arguments: { n: 1 } },
        { id: 'h1', name: 'lookup_heartbeats', arguments: { n: 2 } },
      ],
    },
    { content: 'done' },
  ]);
  const turnId = h.turnId('opt-out');
  await (
    await worker()
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'reader_remote', input: 'go', turnId });
    expect((await h.tiller.result(turnId)).toolCalls.map((c) => c.result)).toEqual(['value 1', 'value 2']);
  });
  const evs = await events(turnId);
  expect(evs.filter((e) => scheduled(e) === 'runTool')).toHaveLength(2);
  expect(localTools(evs)).toEqual([]);
});

test("an MCP tool the server marks read-only runs locally; the others don't", async () => {
  h.model.setScript([
    {
      toolCalls: [
        { id: 'l1', name: 'web__list_tickets', arguments: {} },
        { id: 'c1', name: 'web__create_ticket', arguments: { title: 'x', priority: 1 } },
      ],
    },
    { content: 'done' },
  ]);
  const turnId = h.turnId('mcp-fast');
  await (
    await worker()
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'desk_reader', input: 'go', turnId });
    const result = await h.tiller.result(turnId);
    expect(result.toolCalls.map((c) => [c.name, c.status])).toEqual([
      ['web__list_tickets', 'succeeded'],
      ['web__create_ticket', 'succeeded'],
    ]);
  });
  await recordFixture(h.client, turnId, 'mcp-read-only-local-and-remote');
  const evs = await events(turnId);
  expect(evs.filter((e) => scheduled(e) === 'runTool')).toHaveLength(1);
  expect(localTools(evs)).toHaveLength(1);
});

test("an MCP server's `runAsActivity` keeps its read-only tool a regular activity", async () => {
  h.model.setScript([{ toolCalls: [{ id: 'l1', name: 'slow__list_tickets', arguments: {} }] }, { content: 'done' }]);
  const turnId = h.turnId('mcp-opt-out');
  await (
    await worker()
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'slow_desk_reader', input: 'go', turnId });
    expect((await h.tiller.result(turnId)).toolCalls[0]).toMatchObject({ status: 'succeeded' });
  });
  const evs = await events(turnId);
  expect(evs.filter((e) => scheduled(e) === 'runTool')).toHaveLength(1);
  expect(localTools(evs)).toEqual([]);
});

test('cancelling the turn aborts a read-only tool running locally', async () => {
  seen.length = 0;
  h.model.setScript([{ toolCalls: [{ id: 'w1', name: 'waiting', arguments: {} }] }]);
  const turnId = h.turnId('fast-cancel');
  const running = new Promise<void>((resolve) => (started = resolve));
  // The turn ends cancelled as soon as the cancellation is asked of the local activity (it does not
  // wait for the tool to give up), so the tool's abort is awaited, not assumed done by then (issue 34).
  const toolAborted = new Promise<void>((resolve) => (aborted = resolve));
  await (
    await worker()
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'waiter', input: 'go', turnId });
    await running;
    await h.tiller.cancel(turnId);
    const err = await h.tiller.result(turnId).catch((e: unknown) => e);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    // Still inside runUntil: the abort comes from the cancellation, not from the worker shutting down.
    await within(10_000, toolAborted, 'the tool was not aborted within 10 s of the cancellation');
    expect(seen).toEqual(['started', 'aborted']);
    const state = await h.tiller.state(turnId);
    expect(state.status).toBe('cancelled');
    expect(state.toolCalls[0]).toMatchObject({ id: 'w1', status: 'failed' });
  });
});

/** `promise`, or a rejection with `message` once `ms` have passed. */
async function within<T>(ms: number, promise: Promise<T>, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

test("a read-only tool's timeout holds locally: each attempt is aborted, then the call fails", async () => {
  seen.length = 0;
  h.model.setScript([{ toolCalls: [{ id: 's1', name: 'stuck', arguments: {} }] }, { content: 'gave up' }]);
  const turnId = h.turnId('fast-timeout');
  await (
    await worker()
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'waiter', input: 'go', turnId });
    const result = await h.tiller.result(turnId);
    expect(result.status).toBe('completed');
    expect(result.toolCalls[0]).toMatchObject({ id: 's1', status: 'failed' });
    expect(result.toolCalls[0]!.error).toMatch(/did not complete/);
  });
  // Three attempts (the tool retry policy), each aborted at its start-to-close timeout.
  expect(seen).toEqual(['attempt', 'timed out', 'attempt', 'timed out', 'attempt', 'timed out']);
});

test('a turn recorded before the fast path replays its read-only tools as activities', async () => {
  const name = 'mcp-read-only-before-fast-path';
  const history = historyFromJSON(JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, `${name}.json`), 'utf8')));
  expect(history.events!.filter((e) => scheduled(e) === 'runTool')).toHaveLength(3);
  expect(markers(history.events!)).not.toContain('core_local_activity');
  await Worker.runReplayHistory({ workflowBundle: bundle() }, history, fixtureWorkflowIds()[name]);
  // The patch id is what keeps it so; renaming it would break this replay.
  expect(PATCH_READ_ONLY_LOCAL).toBe('read-only-tools-local');
});
