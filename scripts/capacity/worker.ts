/**
 * One capacity worker process (`ClusterOptions.workerCommand`): a Tiller worker with the bench's agents
 * and instant tools on `TILLER_TASK_QUEUE`, and beside it, in the same process, a worker of the bare
 * Temporal loop (scripts/bench/baseline) on `CAPACITY_BARE_QUEUE` — so Tiller and the bare loop run on the same
 * processes, connection and model. Prints `ready` once both poll.
 *
 * Environment: the cluster's client env (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_CONFIG_FILE,
 * TEMPORAL_PROFILE), OPENAI_BASE_URL (the scripted model), TILLER_WORKFLOW_BUNDLE (Tiller's prebuilt
 * bundle), CAPACITY_BARE_BUNDLE and CAPACITY_BARE_QUEUE (the bare loop's), CAPACITY_RESULT_BYTES (each tool's result size).
 */
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { z } from 'zod';
import { temporalSettings } from '../../src/client/connect';
import { createWorker } from '../../src/worker/create-worker';
import { baselineActivities } from '../bench/baseline/activities';
import { benchAgents, benchTools, Recorder } from '../bench/fixture';

const Env = z.object({
  TEMPORAL_ADDRESS: z.string().min(1),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TILLER_TASK_QUEUE: z.string().min(1),
  OPENAI_BASE_URL: z.string().url(),
  TILLER_WORKFLOW_BUNDLE: z.string().min(1),
  CAPACITY_BARE_BUNDLE: z.string().min(1),
  CAPACITY_BARE_QUEUE: z.string().min(1),
  CAPACITY_RESULT_BYTES: z.coerce.number().int().min(0).default(64),
});

async function main(): Promise<void> {
  const env = Env.parse(process.env);
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
  });
  const connection = await NativeConnection.connect(temporalSettings(process.env).connectionOptions);
  const openai = new OpenAI({ baseURL: env.OPENAI_BASE_URL, apiKey: 'capacity', maxRetries: 0 });
  const tiller = await createWorker({
    connection,
    namespace: env.TEMPORAL_NAMESPACE,
    taskQueue: env.TILLER_TASK_QUEUE,
    openai,
    model: 'scripted',
    agents: benchAgents(),
    tools: benchTools(env.CAPACITY_RESULT_BYTES),
    workflowBundle: { codePath: env.TILLER_WORKFLOW_BUNDLE },
  });
  const bare = await Worker.create({
    connection,
    namespace: env.TEMPORAL_NAMESPACE,
    taskQueue: env.CAPACITY_BARE_QUEUE,
    workflowBundle: { codePath: env.CAPACITY_BARE_BUNDLE },
    activities: baselineActivities(openai, env.CAPACITY_RESULT_BYTES, new Recorder()),
  });
  const running = Promise.all([tiller.run(), bare.run()]);
  process.stdout.write('ready\n');
  await running;
  await connection.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
