/** What a turn's history says went wrong inside the workflow, for the hostile-input tests. */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/**
 * Workflow tasks that failed (a stack overflow, a payload that could not be handled…): must be none.
 * Each is described by its cause and message, so a failure says what happened.
 */
export async function failedWorkflowTasks(client: Client, turnId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(turnId).fetchHistory();
  return (history.events ?? [])
    .filter((e) => e.workflowTaskFailedEventAttributes)
    .map((e) => {
      const a = e.workflowTaskFailedEventAttributes!;
      return `event ${String(e.eventId)}: cause ${String(a.cause)}: ${a.failure?.message ?? ''}`;
    });
}

type HistoryEvent = NonNullable<
  Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>['events']
>[number];

const decoded = (data: Uint8Array | null | undefined): unknown =>
  data ? JSON.parse(Buffer.from(data).toString()) : undefined;

/** A local activity's marker: its activity type and its result (decoded), else undefined. */
export function localActivity(e: HistoryEvent): { type: string; result: unknown } | undefined {
  const m = e.markerRecordedEventAttributes;
  if (m?.markerName !== 'core_local_activity') return undefined;
  const data = decoded(m.details?.data?.payloads?.[0]?.data) as { activity_type?: string } | undefined;
  return { type: data?.activity_type ?? '', result: decoded(m.details?.result?.payloads?.[0]?.data) };
}

/**
 * The results of every run of activity `type` in a history, in order: an activity's completion, or a
 * local activity's marker (a lean run's `startTurn` and `previewTool`, read-only tools).
 */
export function activityResults(events: readonly HistoryEvent[], type: string): unknown[] {
  const scheduled = new Set(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type)
      .map((e) => String(e.eventId)),
  );
  return events.flatMap((e) => {
    const done = e.activityTaskCompletedEventAttributes;
    if (done && scheduled.has(String(done.scheduledEventId))) return [decoded(done.result?.payloads?.[0]?.data)];
    const local = localActivity(e);
    return local?.type === type ? [local.result] : [];
  });
}

/** The patch ids a history's markers record, in order. */
export function patchIds(events: readonly HistoryEvent[]): string[] {
  return events.flatMap((e) => {
    const m = e.markerRecordedEventAttributes;
    if (m?.markerName !== 'core_patch') return [];
    return Object.values(m.details ?? {})
      .flatMap((p) => p.payloads ?? [])
      .map((p) => (decoded(p.data) as { id: string }).id);
  });
}

/** What a workflow task's completion may add to history before the next task: its commands' events. */
const COMMAND_EVENTS = new Set([
  'EVENT_TYPE_MARKER_RECORDED',
  'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
  'EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED',
  'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED',
  'EVENT_TYPE_TIMER_STARTED',
]);

/**
 * Workflow tasks the worker forced: scheduled right after a task completed, with nothing new in
 * between — how core answers a query that came with a task while a local activity's result was pending.
 * A task that carried an update (it is not written before its task: the task's completion is followed
 * by its acceptance) is not one.
 */
export function forcedWorkflowTasks(events: readonly HistoryEvent[]): number {
  const types = events.map((e) => temporal.api.enums.v1.EventType[e.eventType ?? 0] ?? '');
  let forced = 0;
  let afterCompletion = false;
  types.forEach((type, i) => {
    if (type === 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED') afterCompletion = true;
    else if (type === 'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED') {
      if (afterCompletion && !carriesUpdate(types, i)) forced++;
      afterCompletion = false;
    } else if (!COMMAND_EVENTS.has(type)) afterCompletion = false;
  });
  return forced;
}

/** Whether the task scheduled at `i` accepted an update: the event after its completion. */
function carriesUpdate(types: readonly string[], i: number): boolean {
  const completed = types.indexOf('EVENT_TYPE_WORKFLOW_TASK_COMPLETED', i);
  return types[completed + 1] === 'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED';
}
