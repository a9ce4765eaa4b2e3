/**
 * A worker process for tests that kill workers (`kill -9`): the same `createWorker` users call, with
 * the model endpoint, workspace and task queue from the environment. Prints `ready` once polling.
 */
import { NativeConnection } from '@temporalio/worker';
import OpenAI from 'openai';
import { createWorker } from '../../src/worker';
import { fileTools } from '../../src/tools/files';
import { quietRuntime } from './harness';

async function main() {
  quietRuntime();
  const env = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is required`);
    return value;
  };
  const { readFile, deleteFile } = fileTools(() => env('TILLER_WORKSPACE'));
  const worker = await createWorker({
    connection: await NativeConnection.connect({ address: env('TEMPORAL_ADDRESS') }),
    taskQueue: env('TILLER_TASK_QUEUE'),
    openai: new OpenAI({ baseURL: env('OPENAI_BASE_URL'), apiKey: 'test', maxRetries: 0 }),
    model: 'scripted',
    tools: [readFile, deleteFile],
    workflowBundle: { codePath: env('TILLER_WORKFLOW_BUNDLE') },
    // A killed worker's sticky queue is abandoned after 1 s instead of the 10 s default.
    worker: { stickyQueueScheduleToStartTimeout: '1s' },
  });
  const running = worker.run();
  process.stdout.write('ready\n');
  await running;
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
