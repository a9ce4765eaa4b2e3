/**
 * What a turn's Temporal history and description say, read without the turn's help: its size in
 * bytes, failed or retrying workflow tasks, and every run of the gated tool.
 */
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { GATED_TOOL } from './model-cases';
import { localActivity } from '../history';

const { EventType } = temporal.api.enums.v1;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export interface HistoryFacts {
  events: HistoryEvent[];
  /** Encoded size of the whole history. */
  bytes: number;
  /** Each WorkflowTaskFailed event. */
  taskFailures: TaskFailure[];
  /** Tool call ids the gated tool was scheduled to run for (runTool activities). */
  gatedRuns: string[];
  /** Bytes of the model's answers as recorded (callModel results). */
  modelResultBytes: number;
  /** runTool / previewTool activities scheduled, and their local activities' markers. */
  toolActivities: number;
}

export interface TaskFailure {
  cause: string;
  /** Who failed the task: the worker's identity, or `history-service` when the server forced it. */
  identity: string;
  message: string;
}

/**
 * A workflow task the server itself closed (FORCE_CLOSE_COMMAND), as it does when more events arrive
 * during one workflow task than it buffers (e.g. a hundred signals at once): not the workflow's doing.
 */
export const forcedByServer = (f: TaskFailure): boolean =>
  f.cause === 'WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND' && f.identity === 'history-service';

export const failureText = (f: TaskFailure): string => `${f.cause}${f.message ? `: ${f.message}` : ''}`;

export function taskFailure(e: HistoryEvent): TaskFailure | undefined {
  const a = e.workflowTaskFailedEventAttributes;
  if (e.eventType !== EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED || !a) return undefined;
  return {
    cause: a.cause != null ? temporal.api.enums.v1.WorkflowTaskFailedCause[a.cause] : 'unknown cause',
    identity: a.identity ?? '',
    message: (a.failure?.message ?? '').slice(0, 160),
  };
}

export const eventBytes = (e: HistoryEvent): number => temporal.api.history.v1.HistoryEvent.encode(e).finish().length;

export async function readHistory(client: Client, turnId: string, timeoutMs: number): Promise<HistoryFacts> {
  // The abort does not cut the client's retries short (a history page over gRPC's 4 MB is retried
  // as RESOURCE_EXHAUSTED): the race bounds the wait.
  const fetching = client.connection.withAbortSignal(AbortSignal.timeout(timeoutMs), () =>
    client.workflow.getHandle(turnId).fetchHistory(),
  );
  const history = await within(fetching, timeoutMs, 'reading the history');
  const events = history.events ?? [];
  const facts: HistoryFacts = {
    events,
    bytes: 0,
    taskFailures: [],
    gatedRuns: [],
    modelResultBytes: 0,
    toolActivities: 0,
  };
  const activityTypes = new Map<string, string>();
  for (const e of events) {
    facts.bytes += eventBytes(e);
    const failure = taskFailure(e);
    if (failure) facts.taskFailures.push(failure);
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) {
      const type = scheduled.activityType?.name ?? '';
      activityTypes.set(String(e.eventId), type);
      if (type === 'runTool' || type === 'previewTool') facts.toolActivities++;
      if (type === 'runTool') {
        const req = decodeFirst(scheduled.input?.payloads) as { tool?: unknown; toolCallId?: unknown } | undefined;
        if (req?.tool === GATED_TOOL) facts.gatedRuns.push(String(req.toolCallId));
      }
    }
    const local = localActivity(e); // a lean run previews (and runs read-only tools) locally
    if (local?.type === 'runTool' || local?.type === 'previewTool') facts.toolActivities++;
    const completed = e.activityTaskCompletedEventAttributes;
    if (completed && activityTypes.get(String(completed.scheduledEventId)) === 'callModel') {
      facts.modelResultBytes += eventBytes(e);
    }
  }
  return facts;
}

/** Calls given up on by `within` that are still running (the client still retrying them). */
const abandoned = new Set<Promise<unknown>>();

/** `promise`, or a rejection once `ms` have passed (the promise is left to settle on its own). */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
  });
  const settled = promise.then(
    () => undefined,
    () => undefined,
  );
  abandoned.add(settled);
  void settled.then(() => abandoned.delete(settled));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Before closing the connection: let abandoned calls finish (a retry after close fails the suite). */
export async function drainAbandoned(maxMs = 60_000): Promise<string> {
  const n = abandoned.size;
  const started = Date.now();
  const done = await within(Promise.all([...abandoned]), maxMs, 'abandoned calls').then(
    () => true,
    () => false,
  );
  return `${n} abandoned calls ${done ? 'drained' : 'still running'} after ${Date.now() - started} ms`;
}

function decodeFirst(payloads: temporal.api.common.v1.IPayload[] | null | undefined): unknown {
  const first = payloads?.[0];
  if (!first) return undefined;
  try {
    return defaultPayloadConverter.fromPayload(first as never);
  } catch {
    return undefined;
  }
}

export interface Description {
  /** RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, CONTINUED_AS_NEW, TIMED_OUT. */
  status: string;
  /** The pending workflow task's attempt (0: none pending). */
  taskAttempt: number;
  pendingActivities: number;
  historyLength: number;
  historySizeBytes: number;
  /** The turn's own `TillerStatus` search attribute, when it has set one. */
  tillerStatus?: string;
}

export async function describe(client: Client, turnId: string, timeoutMs: number): Promise<Description> {
  const d = await client.connection.withAbortSignal(AbortSignal.timeout(timeoutMs), () =>
    client.workflow.getHandle(turnId).describe(),
  );
  const info = d.raw.workflowExecutionInfo;
  const tillerStatus = d.typedSearchAttributes.getAll().find((p) => p.key.name === 'TillerStatus')?.value;
  return {
    status: d.status.name,
    taskAttempt: d.raw.pendingWorkflowTask?.attempt ?? 0,
    pendingActivities: d.raw.pendingActivities?.length ?? 0,
    historyLength: Number(info?.historyLength ?? 0),
    historySizeBytes: Number(info?.historySizeBytes ?? 0),
    ...(typeof tillerStatus === 'string' && { tillerStatus }),
  };
}
