/**
 * The Temporal baseline (see baseline/workflow.ts) on the bench's dev server and model, measured
 * exactly like a durable turn: the time between consecutive requests at the model server.
 */
import { randomUUID } from 'node:crypto';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { baselineActivities } from '../baseline/activities';
import { openaiFor, QUIET_BUNDLE_LOGGER, type BenchEnv } from '../env';
import { planInput } from '../fixture';
import { gaps } from '../stats';

let bundle: { code: string } | undefined;

/** The baseline workflows' bundle, built once per process. */
export async function baselineBundle(): Promise<{ code: string }> {
  bundle ??= await bundleWorkflowCode({
    workflowsPath: require.resolve('../baseline/workflow'),
    logger: QUIET_BUNDLE_LOGGER as never,
  });
  return bundle;
}

/** A worker for the baseline workflow and a function that runs one baseline turn of N steps. */
export async function baselineWorker(
  env: BenchEnv,
  { taskQueue = env.queue('baseline').taskQueue, ...options }: { maxCachedWorkflows?: number; taskQueue?: string } = {},
) {
  const worker = await Worker.create({
    connection: env.native,
    namespace: env.server.namespace,
    taskQueue,
    workflowBundle: await baselineBundle(),
    activities: baselineActivities(openaiFor(env.model), env.resultBytes, env.rec),
    ...options,
  });
  const turn = async (steps: number) => {
    const key = `baseline-${randomUUID()}`;
    const t0 = performance.now();
    await env.client.workflow.execute('baselineTurn', {
      taskQueue,
      workflowId: key,
      args: [planInput({ key, steps }), steps],
    });
    const wall = performance.now() - t0;
    const stepTimes = gaps(env.rec.requests.get(key) ?? []);
    env.rec.requests.delete(key);
    if (stepTimes.length !== steps)
      throw new Error(`baseline ${key}: ${stepTimes.length} step times, expected ${steps}`);
    return { key, wall, stepTimes };
  };
  return { worker, taskQueue, turn };
}
