/**
 * Failure text that Temporal's core cannot take, and failure text that is too large to keep.
 *
 * A lone UTF-16 surrogate (JSON carries one as `\ud800`: a model's or an MCP server's error, a tool's
 * argument echoed in an error) in a short string of a failure makes the worker's completion undecodable
 * by the core ("Cannot decode Completion … InvalidString") and stops the worker, and every turn it polls
 * for with it. The Tiller plugin's failure converter (src/codec/failure-strings.ts) makes every string
 * well-formed, for the user's own activities and workflows on the same worker too.
 */
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { createTillerPlugin } from '../../src/worker/plugin';
import { defineTool } from '../../src/tools/define';
import { createHarness, type Harness } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

const ping = defineTool({ name: 'ping', description: 'ping', input: z.object({}), execute: () => 'pong' });
const agents = [defineAgent({ name: 'plain', instructions: 'x', tools: ['ping'], stream: false })];

test('short failures with lone surrogates, from an activity and from a workflow, leave the worker running', async () => {
  const taskQueue = `${h.taskQueue}-short-failures`;
  const worker = await Worker.create({
    connection: h.native,
    taskQueue,
    workflowsPath: path.resolve(__dirname, '../fixtures/workflows/short-failures.ts'),
    activities: {
      refuse: async () => {
        throw new Error('no tool \ud800 here');
      },
    },
    plugins: [
      createTillerPlugin({
        agents,
        tools: [ping],
        openai: new OpenAI({ baseURL: h.model.url, apiKey: 'test' }),
        model: 'scripted',
        tracing: false,
      }),
    ],
  });
  await worker.runUntil(async () => {
    const caught = await h.client.workflow.execute('activityFails', { taskQueue, workflowId: h.turnId('activity') });
    expect(caught).toBe('caught: no tool \ufffd here');

    const failed = await h.client.workflow
      .execute('workflowFails', { taskQueue, workflowId: h.turnId('workflow') })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(WorkflowFailedError);
    expect((failed as WorkflowFailedError).cause?.message).toBe('no \ufffd here');
    expect(worker.getState()).toBe('RUNNING');
  });
});

test('a model error body of 1 MB is recorded clipped, not whole', async () => {
  h.model.setScript([{ error: { status: 400, message: 'x'.repeat(1_000_000) } }]);
  const turnId = h.turnId('huge-error');
  await (
    await h.worker({ agents, tools: [ping] })
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'plain', input: 'go', turnId });
    await h.client.workflow
      .getHandle(turnId)
      .result()
      .catch(() => undefined);
  });
  let largest = 0;
  const { events } = await h.client.workflow.getHandle(turnId).fetchHistory();
  for (const e of events ?? []) {
    const failure = e.activityTaskFailedEventAttributes?.failure ?? e.workflowExecutionFailedEventAttributes?.failure;
    largest = Math.max(largest, failure?.message?.length ?? 0, failure?.cause?.message?.length ?? 0);
  }
  expect(largest).toBeGreaterThan(100);
  expect(largest).toBeLessThanOrEqual(8_000);
});
