/** Waiting for the frontend, then the namespace and Tiller's search attributes on it, seen by every service. */
import { Client, Connection, type ConnectionOptions } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { missingSearchAttributes, TillerStatus } from '../../src/core/contract';
import { ensureSearchAttributes } from '../../src/worker/search-attributes';

export async function waitForFrontend(options: ConnectionOptions): Promise<Connection> {
  const { address } = options;
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      const connection = await Connection.connect({ ...options, connectTimeout: 2_000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return connection;
      } catch (err) {
        await connection.close();
        throw err;
      }
    } catch (err) {
      if (Date.now() > deadline)
        throw new Error(`the frontend at ${address} did not answer: ${(err as Error).message}`, { cause: err });
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

export async function setupNamespace(
  connection: Connection,
  namespace: string,
  log: (line: string) => void,
): Promise<void> {
  const deadline = Date.now() + 120_000;
  const retry = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    for (;;) {
      try {
        return await fn();
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`${what}: ${(err as Error).message}`, { cause: err });
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };
  await retry('namespace', async () => {
    try {
      await connection.workflowService.describeNamespace({ namespace });
    } catch {
      // Same retention as docker-compose.yml's temporal-setup job (168h).
      await connection.workflowService
        .registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('168h') })
        .catch((err: { code?: number }) => {
          if (err.code !== 6) throw err; // ALREADY_EXISTS
        });
      await connection.workflowService.describeNamespace({ namespace });
    }
  });
  // A namespace just created may answer "not found" to the operator service for a moment.
  await retry('search attributes', async () => {
    const outcome = await ensureSearchAttributes(connection, namespace);
    if (outcome.type !== 'registered') throw new Error(outcome.reason);
    const listed = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = missingSearchAttributes(listed.customAttributes);
    if (missing.length) throw new Error(`not visible yet: ${missing.join(', ')}`);
  });
  await retry('search attributes in use', () => searchAttributesInUse(connection, namespace));
  log(`namespace ${namespace}: Tiller's search attributes registered`);
}

/**
 * The services cache the namespace's search-attribute aliases (refreshed every 2 s; the server does not
 * re-read them per lookup: deploy/temporal/dynamicconfig.yaml): a workflow started with them — checked by
 * the frontend — must show in visibility by them — written by the history service — before turns start.
 * The probe waits on a task queue no worker polls, and is terminated once seen.
 */
async function searchAttributesInUse(connection: Connection, namespace: string): Promise<void> {
  const client = new Client({ connection, namespace });
  const workflowId = `tiller-search-attributes-probe-${Date.now()}`;
  const probe = await client.workflow.start('tillerSearchAttributesProbe', {
    taskQueue: 'tiller-search-attributes-probe',
    workflowId,
    typedSearchAttributes: [{ key: TillerStatus, value: 'probe' }],
  });
  try {
    const query = `WorkflowId = "${workflowId}" AND TillerStatus = "probe"`;
    const deadline = Date.now() + 30_000;
    while ((await client.workflow.count(query)).count === 0) {
      if (Date.now() > deadline) throw new Error(`the probe ${workflowId} never showed in visibility by TillerStatus`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await probe.terminate('Tiller search attributes are in use').catch(() => undefined);
  }
}
