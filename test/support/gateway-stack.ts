/**
 * Teardown shared by the test files that run a gateway in front of a worker on the harness's server:
 * the gateway closes first, then every turn the file started is cancelled (nothing left waiting on the
 * shared server), then the worker stops and the harness closes.
 */
import type { Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import type { Harness } from './harness';

export interface GatewayStack {
  app?: FastifyInstance;
  started: readonly string[];
  worker?: Worker;
  running?: Promise<void>;
  h?: Harness;
  /** Closed after the worker, before the harness (a stand-in service, say). */
  also?: () => Promise<unknown>;
}

export async function closeGatewayStack(stack: GatewayStack): Promise<void> {
  await stack.app?.close();
  const h = stack.h;
  if (h) await Promise.all(stack.started.map((id) => h.tiller.cancel(id).catch(() => undefined)));
  if (stack.worker?.getState() === 'RUNNING') stack.worker.shutdown();
  await stack.running;
  await stack.also?.();
  await h?.close();
}
