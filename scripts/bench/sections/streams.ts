/**
 * Live text streaming, two ways, the same text at the same pace (issue 4 item 3):
 * - Tiller: the model activity heartbeats the text so far (the worker sends at most one heartbeat per
 *   100 ms), a follower reads it with DescribeWorkflowExecution (`TillerClient.watchLive`).
 *   Latency = the follower receiving a delta − the scripted model writing the chunk that completed it.
 * - `@temporalio/workflow-streams`: an activity publishes one item per chunk through the library's
 *   batching client (signals, 100 ms batches), a subscriber long-polls with its update.
 *   Latency = the subscriber receiving an item − the activity publishing it.
 * History cost: events beyond the same workflow streaming (almost) nothing.
 */
import { randomUUID } from 'node:crypto';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import { defineAgent } from '../../../src/agents/define';
import type { LiveTextEvent } from '../../../src/core/live-text';
import { startScriptedModel } from '../../../src/testing/scripted-model';
import { createWorker } from '../../../src/worker/create-worker';
import { openaiFor, QUIET_BUNDLE_LOGGER, type BenchEnv } from '../env';
import { streamProbeActivities, type ProbeChunk } from '../streams/activities';
import { round, roundSummary, summarize, type Summary } from '../stats';

export interface StreamVariant {
  /** Chunks the follower received text for (Tiller: deltas; workflow-streams: items). */
  received: number;
  /** Messages the follower got (Tiller: delta events, i.e. batches; workflow-streams: items). */
  messages: number;
  latencyMs: Summary;
  /** History events of the streaming workflow beyond the same workflow streaming one chunk. */
  extraHistoryEvents: number;
  extraHistoryEventsPerSecond: number;
}

export interface StreamsResult {
  runs: number;
  chunks: number;
  chunkIntervalMs: number;
  tiller: StreamVariant;
  workflowStreams: StreamVariant & { batches: number; extraHistoryEventsPerBatch: number };
}

const CHUNK = 'xxxxxxxx';
const events = async (env: BenchEnv, id: string) =>
  (await env.client.workflow.getHandle(id).fetchHistory()).events ?? [];

async function runTiller(env: BenchEnv, runs: number, chunks: number, intervalMs: number): Promise<StreamVariant> {
  const model = await startScriptedModel({ chunkSize: CHUNK.length });
  const { taskQueue, tiller } = env.queue('streams');
  const worker = await createWorker({
    connection: env.native,
    namespace: env.server.namespace,
    taskQueue,
    agents: [defineAgent({ name: 'writer', instructions: 'Write.', tools: [] })],
    tools: [],
    openai: openaiFor(model),
    model: 'scripted',
    workflowBundle: { code: env.bundle.code },
  });
  const latencies: number[] = [];
  let received = 0;
  let messages = 0;
  let extra = 0;
  let streamingMs = 0;
  try {
    await worker.runUntil(async () => {
      for (let r = 0; r < runs; r++) {
        const shortId = `streams-short-${randomUUID()}`;
        model.setScript([{ content: CHUNK }]);
        await tiller.startTurn({ agent: 'writer', input: 'write', turnId: shortId });
        await tiller.result(shortId);

        const id = `streams-tiller-${randomUUID()}`;
        model.setScript([{ content: CHUNK.repeat(chunks), chunkDelayMs: intervalMs }]);
        model.contentChunks.length = 0;
        await tiller.startTurn({ agent: 'writer', input: 'write', turnId: id });
        const deltas: { at: number; chars: number }[] = [];
        let chars = 0;
        for await (const e of tiller.watchLive(id)) {
          if (e.type !== 'delta') continue;
          chars += (e as Extract<LiveTextEvent, { type: 'delta' }>).text.length;
          deltas.push({ at: Date.now(), chars });
        }
        // Each delta completes the chunks up to its length: their latency is its arrival − their write.
        const written = model.contentChunks.map((c) => c.at);
        let next = 0;
        for (const d of deltas) {
          for (; next < written.length && (next + 1) * CHUNK.length <= d.chars; next++) {
            latencies.push(d.at - written[next]!);
            received++;
          }
        }
        messages += deltas.length;
        streamingMs += written.at(-1)! - written[0]!;
        extra += (await events(env, id)).length - (await events(env, shortId)).length;
      }
    });
  } finally {
    await model.close();
  }
  return {
    received,
    messages,
    latencyMs: roundSummary(summarize(latencies)),
    extraHistoryEvents: round(extra / runs),
    extraHistoryEventsPerSecond: round(extra / (streamingMs / 1000)),
  };
}

async function runWorkflowStreams(env: BenchEnv, runs: number, chunks: number, intervalMs: number) {
  const bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('../streams/workflow'),
    logger: QUIET_BUNDLE_LOGGER as never,
  });
  const { taskQueue } = env.queue('workflow-streams');
  const worker = await Worker.create({
    connection: env.native,
    namespace: env.server.namespace,
    taskQueue,
    workflowBundle: bundle,
    activities: streamProbeActivities,
  });
  const latencies: number[] = [];
  let received = 0;
  let extra = 0;
  let batches = 0;
  let streamingMs = 0;
  const start = (id: string, n: number) =>
    env.client.workflow.start('streamsProbe', { taskQueue, workflowId: id, args: [n, intervalMs, 100] });
  await worker.runUntil(async () => {
    for (let r = 0; r < runs; r++) {
      const shortId = `wfs-short-${randomUUID()}`;
      await (await start(shortId, 1)).result();
      const id = `wfs-${randomUUID()}`;
      const handle = await start(id, chunks);
      const topic = WorkflowStreamClient.create(env.client, id).topic<ProbeChunk>('text');
      let first = 0;
      let last = 0;
      for await (const item of topic.subscribe(0)) {
        const now = Date.now();
        latencies.push(now - item.data.at);
        first ||= item.data.at;
        last = item.data.at;
        received++;
        if (item.data.i === chunks - 1) break;
      }
      await handle.result();
      streamingMs += last - first;
      const long = await events(env, id);
      const short = await events(env, shortId);
      extra += long.length - short.length;
      const signalled = (h: typeof long) => h.filter((e) => e.workflowExecutionSignaledEventAttributes).length;
      batches += signalled(long) - signalled(short);
    }
  });
  return {
    received,
    messages: received,
    latencyMs: roundSummary(summarize(latencies)),
    extraHistoryEvents: round(extra / runs),
    extraHistoryEventsPerSecond: round(extra / (streamingMs / 1000)),
    batches: round(batches / runs),
    extraHistoryEventsPerBatch: round(extra / Math.max(1, batches)),
  };
}

export async function runStreams(
  env: BenchEnv,
  opts: { runs: number; chunks: number; chunkIntervalMs: number },
): Promise<StreamsResult> {
  const tiller = await runTiller(env, opts.runs, opts.chunks, opts.chunkIntervalMs);
  const workflowStreams = await runWorkflowStreams(env, opts.runs, opts.chunks, opts.chunkIntervalMs);
  return { runs: opts.runs, chunks: opts.chunks, chunkIntervalMs: opts.chunkIntervalMs, tiller, workflowStreams };
}
