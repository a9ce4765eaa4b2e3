/**
 * One soak worker process (`ClusterOptions.workerCommand`): `createWorker` with the soak's agents and
 * ledger tools, connected to `TEMPORAL_ADDRESS` / `TEMPORAL_NAMESPACE` / `TILLER_TASK_QUEUE`, the
 * model at `OPENAI_BASE_URL` and the ledger at `SOAK_LEDGER_URL`. Prints `ready` once polling.
 *
 * `TILLER_WORKFLOW_BUNDLE` (optional): a prebuilt workflow bundle, so a restarted worker polls again
 * in seconds instead of bundling first.
 */
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { temporalSettings } from '../../src/client/connect';
import OpenAI from 'openai';
import { createWorker } from '../../src/worker/create-worker';
import { soakAgents, soakTools } from './agents';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

async function main(): Promise<void> {
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
  });
  const bundle = process.env.TILLER_WORKFLOW_BUNDLE;
  const worker = await createWorker({
    // TEMPORAL_ADDRESS, and on the secured cluster TEMPORAL_CONFIG_FILE / TEMPORAL_PROFILE (TLS, token).
    connection: await NativeConnection.connect(
      temporalSettings({ ...process.env, TEMPORAL_ADDRESS: env('TEMPORAL_ADDRESS') }).connectionOptions,
    ),
    namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: env('TILLER_TASK_QUEUE'),
    openai: new OpenAI({ baseURL: env('OPENAI_BASE_URL'), apiKey: 'soak', maxRetries: 0 }),
    model: 'scripted',
    tools: soakTools(env('SOAK_LEDGER_URL')),
    agents: soakAgents,
    ...(bundle && { workflowBundle: { codePath: bundle } }),
    // A killed worker's sticky queue is given up after 1 s instead of 10 s: its turns move on sooner.
    worker: { stickyQueueScheduleToStartTimeout: '1s' },
  });
  const running = worker.run();
  process.stdout.write('ready\n');
  await running;
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
