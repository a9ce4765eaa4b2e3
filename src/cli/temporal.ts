/** Connecting to Temporal, and the cheap checks that turn a 30 s query timeout into a clear message. */
import os from 'node:os';
import { Connection, WorkflowNotFoundError, type WorkflowExecutionDescription } from '@temporalio/client';
import { channelIdentity } from '../audit/channel';
import { TillerClient } from '../client';
import { hasWorker as hasWorkerOn, turnVisibility } from '../client/workers';
import { connectClient, type TemporalSettings } from '../client/connect';
import { CliError, EXIT, noWorkerMessage, unreachable } from './errors';

export async function connectTiller(settings: TemporalSettings): Promise<TillerClient> {
  try {
    const identity = channelIdentity('cli', `${process.pid}@${os.hostname()}`);
    return new TillerClient(await connectClient(settings, identity), settings.taskQueue);
  } catch (err) {
    throw unreachable(settings.address, err);
  }
}

export async function connectOperator(settings: TemporalSettings): Promise<Connection> {
  try {
    return await Connection.connect({ ...settings.connectionOptions, connectTimeout: '5s' });
  } catch (err) {
    throw unreachable(settings.address, err);
  }
}

/** The turn's workflow execution, or `no turn <id>` (exit 4). */
export async function describeTurn(tiller: TillerClient, turnId: string): Promise<WorkflowExecutionDescription> {
  try {
    return await tiller.handle(turnId).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new CliError(`no turn ${turnId}`, EXIT.notFound);
    throw err;
  }
}

/** Whether some worker polled the workflow task queue recently. */
export const hasWorker = (tiller: TillerClient, taskQueue: string): Promise<boolean> =>
  hasWorkerOn(tiller.temporal, taskQueue);

/** One line of what the server's visibility knows of a turn, for when no worker can answer its query. */
export function visibilityLine(d: WorkflowExecutionDescription): string {
  const v = turnVisibility(d);
  // Started, its first task scheduled (and maybe picked up): no worker has completed a task of it. Its
  // search attributes may still say `running`: Tiller's client starts a turn with them.
  const unrun = d.historyLength <= 3;
  return [
    `visibility: workflow ${v.workflowStatus}`,
    v.status
      ? `Tiller status ${v.status}${unrun ? ' as started (no worker has run it)' : ''}`
      : `no Tiller status${unrun ? ' yet (no worker has run it)' : ''}`,
    ...(v.agent ? [`agent ${v.agent}`] : []),
    ...(v.pendingTools.length ? [`waiting on ${v.pendingTools.join(', ')}`] : []),
    `started ${v.startTime}`,
  ].join(' · ');
}

/** `no worker is polling task queue <q>` and what visibility knows of the turn (exit 3). */
export const noWorkerError = (d: WorkflowExecutionDescription) =>
  new CliError(`${noWorkerMessage(d.taskQueue)}\n${visibilityLine(d)}`, EXIT.unavailable);

/** Throws `no worker is polling task queue <q>` (exit 3) unless a worker polls `taskQueue`, waiting up to `graceMs`. */
export async function requireWorker(tiller: TillerClient, taskQueue: string, graceMs = 0): Promise<void> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    if (await hasWorker(tiller, taskQueue)) return;
    if (Date.now() >= deadline) throw new CliError(noWorkerMessage(taskQueue), EXIT.unavailable);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export const isRunning = (d: WorkflowExecutionDescription) => d.status.name === 'RUNNING';
