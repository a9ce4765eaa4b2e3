/**
 * Is anyone there? Whether a worker polls a task queue (DescribeTaskQueue: a server call, answered
 * at once), and what visibility knows of a turn without a worker — so clients can say "no worker"
 * instead of waiting out a query timeout.
 */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { TillerAgent, TillerPendingTools, TillerStatus } from '../core/contract';

/** A poller that has not polled for this long is gone (an idle long poll lasts about a minute). */
const POLLER_STALE_MS = 2 * 60_000;

/** Whether some worker polled the workflow task queue recently. */
export async function hasWorker(client: Client, taskQueue: string): Promise<boolean> {
  const response = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  const now = Date.now();
  return (response.pollers ?? []).some((p) => {
    const seconds = p.lastAccessTime?.seconds;
    if (seconds === undefined || seconds === null) return true;
    return now - Number(seconds) * 1000 < POLLER_STALE_MS;
  });
}

export const noWorkerMessage = (taskQueue: string) =>
  `no worker is polling task queue ${taskQueue}: start one with \`npx tiller worker\``;

/** What the server's visibility says of a turn: no worker needed. */
export interface TurnVisibility {
  workflowStatus: string;
  taskQueue: string;
  agent?: string;
  /** TillerStatus: running, awaiting_approval, … as of the turn's last upsert. */
  status?: string;
  pendingTools: string[];
  startTime: string;
}

export function turnVisibility(d: WorkflowExecutionDescription): TurnVisibility {
  const agent = d.typedSearchAttributes.get(TillerAgent);
  const status = d.typedSearchAttributes.get(TillerStatus);
  return {
    workflowStatus: d.status.name.toLowerCase(),
    taskQueue: d.taskQueue,
    ...(agent !== undefined && { agent }),
    ...(status !== undefined && { status }),
    pendingTools: d.typedSearchAttributes.get(TillerPendingTools) ?? [],
    startTime: d.startTime.toISOString(),
  };
}
