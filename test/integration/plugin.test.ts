/**
 * Tiller as a worker plugin on a worker the user builds — `Worker.create({ plugins: [tiller, other] })` —
 * beside another team's plugin: a turn runs to completion with both plugins' contributions on the
 * worker, tracing comes with the plugin (its bundle too), and the MCP connections close when the
 * worker's run ends.
 */
import path from 'node:path';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { SimplePlugin } from '@temporalio/plugin';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { createTracing } from '../../src/observability/tracing';
import {
  createTillerPlugin,
  DEFAULT_WORKFLOW_CACHE_MIB,
  workflowCacheSize,
  workflowsPath,
} from '../../src/worker/plugin';
import type { TillerPluginOptions } from '../../src/worker/options';
import { defineTool } from '../../src/tools/define';
import { bundle, createHarness, type Harness } from '../support/harness';
import { ROOT } from '../support/processes';

let h: Harness;
let openai: OpenAI;
beforeAll(async () => {
  h = await createHarness();
  openai = new OpenAI({ baseURL: h.model.url, apiKey: 'test', maxRetries: 0 });
});
afterAll(async () => {
  await h?.close();
});

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a word up.',
  input: z.object({ q: z.string() }),
  execute: ({ q }) => `${q}: found`,
});
const agent = defineAgent({ name: 'plugged', instructions: 'x', tools: ['lookup'], model: 'scripted-4o' });
// whoami has no read-only hint, so MCP's defaults would gate it: opted out, this test is about the lifecycle.
const deskAgent = defineAgent({
  name: 'desk-agent',
  instructions: 'x',
  tools: [],
  mcp: ['desk'],
  approvals: { desk__whoami: false },
});

const tillerOptions = (more: TillerPluginOptions = {}): TillerPluginOptions => ({
  agents: [agent],
  tools: [lookup],
  openai,
  model: 'scripted',
  tracing: false,
  ...more,
});

/** Another team's plugin: an activity of its own, an interceptor on every activity, a wrapper around the run. */
function auditPlugin() {
  const activities: string[] = [];
  const runs: string[] = [];
  const plugin = new SimplePlugin({
    name: 'audit',
    activities: { auditPing: async () => 'pong' },
    workerInterceptors: {
      activity: [
        (ctx) => ({
          inbound: {
            execute: (input, next) => {
              activities.push(ctx.info.activityType);
              return next(input);
            },
          },
        }),
      ],
    },
    runContext: async (next) => {
      runs.push('start');
      await next();
      runs.push('end');
    },
  });
  return { plugin, activities, runs };
}

const lookupScript = () => [
  { toolCalls: [{ id: 'q1', name: 'lookup', arguments: { q: 'tiller' } }] },
  { content: 'tiller: found' },
];

test("beside another plugin: a Tiller turn completes, and the other plugin's activity, interceptor and run wrapper are on the same worker", async () => {
  h.model.setScript(lookupScript());
  const audit = auditPlugin();
  const worker = await Worker.create({
    connection: h.native,
    taskQueue: h.taskQueue,
    plugins: [createTillerPlugin(tillerOptions({ workflowBundle: bundle() })), audit.plugin],
  });
  // Both plugins' activities are registered; the live-text heartbeat interval is Tiller's default.
  expect([...worker.options.activities.keys()]).toEqual(
    expect.arrayContaining(['startTurn', 'callModel', 'runTool', 'auditPing']),
  );
  expect(worker.options.maxHeartbeatThrottleIntervalMs).toBe(100);
  // The workflow cache is sized from Tiller's memory budget, not from the heap limit.
  expect(worker.options.maxCachedWorkflows).toBe(workflowCacheSize(DEFAULT_WORKFLOW_CACHE_MIB));
  expect(workflowCacheSize(DEFAULT_WORKFLOW_CACHE_MIB)).toBe(512);
  expect(createTillerPlugin(tillerOptions({ workflowCacheMiB: 75 })).maxCachedWorkflows).toBe(100);

  const turnId = h.turnId('plugin');
  const result = await worker.runUntil(async () => {
    await h.tiller.startTurn({ agent: 'plugged', input: 'look tiller up', turnId });
    return h.tiller.result(turnId);
  });
  expect(result).toMatchObject({ status: 'completed', output: 'tiller: found' });
  expect(result.toolCalls).toEqual([
    expect.objectContaining({ id: 'q1', name: 'lookup', status: 'succeeded', result: 'tiller: found' }),
  ]);
  // The other plugin's interceptor ran around Tiller's activities, its run wrapper around the run.
  expect(audit.activities).toEqual(expect.arrayContaining(['startTurn', 'callModel', 'runTool']));
  expect(audit.activities.filter((a) => a === 'callModel')).toHaveLength(2);
  expect(audit.runs).toEqual(['start', 'end']);
});

test('with tracing: a bundle built with the plugin holds the workflow interceptors, the sink and activity spans come with the plugin, and a worker setting of the user wins', async () => {
  const exporter = new InMemorySpanExporter();
  const tracing = createTracing(new SimpleSpanProcessor(exporter), 'tiller-plugin-test');
  try {
    const tiller = createTillerPlugin(tillerOptions({ tracing }));
    const { code } = await bundleWorkflowCode({
      workflowsPath,
      plugins: [tiller],
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error } as never,
    });
    h.model.setScript(lookupScript());
    const audit = auditPlugin();
    const worker = await Worker.create({
      connection: h.native,
      taskQueue: h.taskQueue,
      workflowBundle: { code },
      maxHeartbeatThrottleInterval: '2s',
      maxCachedWorkflows: 20,
      plugins: [tiller, audit.plugin],
    });
    expect(worker.options.maxHeartbeatThrottleIntervalMs).toBe(2000);
    expect(worker.options.maxCachedWorkflows).toBe(20);
    // The bundle shares zod between turns (src/workflows/preload.ts).
    expect(code).toMatch(/preloadModules\(\) \{\s*__webpack_require__\([^)]*"\.\/src\/workflows\/preload\.ts"\)/);

    const turnId = h.turnId('plugin-traced');
    await worker.runUntil(async () => {
      await h.tiller.startTurn({ agent: 'plugged', input: 'look tiller up', turnId });
      expect((await h.tiller.result(turnId)).status).toBe('completed');
    });
    await tracing.processor.forceFlush();
    const spans = exporter.getFinishedSpans();
    const named = (name: string) => spans.filter((s) => s.name === name);
    // The workflow's span comes from the interceptor module in the bundle, exported through the sink.
    const run = named('RunWorkflow:agentTurn');
    expect(run).toHaveLength(1);
    const traceId = run[0]!.spanContext().traceId;
    const inTurn = [...named('RunActivity:callModel'), ...named('chat scripted-4o'), ...named('execute_tool lookup')];
    expect(inTurn).toHaveLength(5);
    for (const s of inTurn) expect(s.spanContext().traceId).toBe(traceId);
    expect(audit.activities).toEqual(expect.arrayContaining(['startTurn', 'callModel', 'runTool']));
  } finally {
    await tracing.shutdown();
  }
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test("MCP: the connections stay open while the worker runs and are closed when its run ends, inside the other plugin's wrapper", async () => {
  const tiller = createTillerPlugin(
    tillerOptions({
      agents: [deskAgent],
      tools: [],
      workflowBundle: bundle(),
      mcpServers: [
        {
          name: 'desk',
          command: process.execPath,
          args: ['--require', 'tsx/cjs', path.join(ROOT, 'test/fixtures/mcp/server.ts')],
          cwd: ROOT,
        },
      ],
    }),
  );
  const pool = tiller.mcp!;
  expect(pool.openConnections).toBe(0);
  const audit = auditPlugin();
  const worker = await Worker.create({ connection: h.native, taskQueue: h.taskQueue, plugins: [tiller, audit.plugin] });
  h.model.setScript([{ toolCalls: [{ id: 'w1', name: 'desk__whoami', arguments: {} }] }, { content: 'ok' }]);
  const turnId = h.turnId('plugin-mcp');

  const pid = await worker.runUntil(async () => {
    await h.tiller.startTurn({ agent: 'desk-agent', input: 'who?', turnId });
    const result = await h.tiller.result(turnId);
    expect(result.status).toBe('completed');
    const serverPid = Number(result.toolCalls[0]?.result);
    expect(serverPid).toBeGreaterThan(0);
    // Still running: the stdio server is up and its connection open.
    expect(pool.openConnections).toBe(1);
    expect(isAlive(serverPid)).toBe(true);
    return serverPid;
  });

  // run() has returned: the pool is closed and the stdio server's process has ended.
  expect(audit.runs).toEqual(['start', 'end']);
  expect(pool.openConnections).toBe(0);
  expect(isAlive(pid)).toBe(false);
  await expect(pool.listTools('desk')).rejects.toThrow('the MCP pool is closed');
});

test('the agent checks of createWorker come with the plugin', () => {
  expect(() => createTillerPlugin(tillerOptions({ tools: [] }))).toThrow(
    /agent plugged uses unregistered tools: lookup/,
  );
  expect(() => createTillerPlugin(tillerOptions({ agents: [deskAgent] }))).toThrow(
    /agent desk-agent uses unconfigured MCP servers: desk/,
  );
});
