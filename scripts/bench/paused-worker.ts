/**
 * A worker in its own process, so the paused-turns section can read the worker's RSS alone (no
 * client, no model server, no bench bookkeeping in it). Configured by the `BENCH_WORKER` env var
 * (JSON), driven over IPC: `{ type: 'mem' }` → memory figures, `{ type: 'stop' }` → shut down.
 */
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import OpenAI from 'openai';
import { createWorker } from '../../src/worker/create-worker';
import { benchAgents, benchTools } from './fixture';

export interface WorkerConfig {
  address: string;
  namespace: string;
  taskQueue: string;
  modelUrl: string;
  bundlePath: string;
  resultBytes: number;
  maxCachedWorkflows?: number;
}

export interface MemReport {
  /** After a GC of the main thread; the workflow threads' heaps collect on their own. */
  rss: number;
  /** The highest RSS sampled (every 100 ms) since the worker started: what it takes between collections. */
  rssPeak: number;
  heapUsed: number;
  external: number;
  cachedWorkflows: number;
  maxCachedWorkflows: number;
}

async function main(): Promise<void> {
  const cfg = JSON.parse(process.env.BENCH_WORKER ?? '{}') as WorkerConfig;
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
  });
  const connection = await NativeConnection.connect({ address: cfg.address });
  const worker = await createWorker({
    connection,
    namespace: cfg.namespace,
    taskQueue: cfg.taskQueue,
    agents: benchAgents(),
    tools: benchTools(cfg.resultBytes),
    openai: new OpenAI({ baseURL: cfg.modelUrl, apiKey: 'bench', maxRetries: 0 }),
    model: 'scripted',
    workflowBundle: { codePath: cfg.bundlePath },
    ...(cfg.maxCachedWorkflows !== undefined && { worker: { maxCachedWorkflows: cfg.maxCachedWorkflows } }),
  });
  let rssPeak = process.memoryUsage.rss();
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 100);
  process.on('message', (msg: { type: string }) => {
    if (msg.type === 'mem') {
      (globalThis as { gc?: () => void }).gc?.();
      const m = process.memoryUsage();
      const report: MemReport = {
        rss: m.rss,
        rssPeak: Math.max(rssPeak, m.rss),
        heapUsed: m.heapUsed,
        external: m.external,
        cachedWorkflows: worker.getStatus().numCachedWorkflows,
        maxCachedWorkflows: worker.options.maxCachedWorkflows,
      };
      process.send?.({ type: 'mem', report });
    } else if (msg.type === 'stop') {
      clearInterval(sampler);
      worker.shutdown();
    }
  });
  const running = worker.run();
  process.send?.({ type: 'ready' });
  await running;
  await connection.close();
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
