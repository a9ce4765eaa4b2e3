/**
 * Where a step's time goes, from the server's own event timestamps: workflow task schedule → start
 * (waiting for a worker's poll), start → complete (the worker's processing plus its round trips),
 * activity schedule → complete (dispatch, execution and report; for activities without heartbeats
 * the server writes STARTED together with COMPLETED).
 */
import type { temporal } from '@temporalio/proto';
import { round, summarize } from './stats';

type History = temporal.api.history.v1.IHistory;

export interface Phases {
  workflowTaskScheduleToStartP50: number;
  workflowTaskStartToCompleteP50: number;
  activityScheduleToCompleteP50: number;
  workflowTasksPerStep: number;
}

function ms(t: temporal.api.history.v1.IHistoryEvent['eventTime']): number {
  return Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;
}

export function phasesOf(history: History, steps: number): Phases {
  const wftScheduled = new Map<number, number>();
  const wftStarted = new Map<number, number>();
  const actScheduled = new Map<number, number>();
  const s2s: number[] = [];
  const s2c: number[] = [];
  const act: number[] = [];
  let wfts = 0;
  for (const e of history.events ?? []) {
    const id = Number(e.eventId);
    const at = ms(e.eventTime);
    if (e.workflowTaskScheduledEventAttributes) {
      wftScheduled.set(id, at);
      wfts++;
    } else if (e.workflowTaskStartedEventAttributes) {
      const from = wftScheduled.get(Number(e.workflowTaskStartedEventAttributes.scheduledEventId));
      if (from !== undefined) s2s.push(at - from);
      wftStarted.set(id, at);
    } else if (e.workflowTaskCompletedEventAttributes) {
      const from = wftStarted.get(Number(e.workflowTaskCompletedEventAttributes.startedEventId));
      if (from !== undefined) s2c.push(at - from);
    } else if (e.activityTaskScheduledEventAttributes) {
      actScheduled.set(id, at);
    } else if (e.activityTaskCompletedEventAttributes) {
      const from = actScheduled.get(Number(e.activityTaskCompletedEventAttributes.scheduledEventId));
      if (from !== undefined) act.push(at - from);
    }
  }
  return {
    workflowTaskScheduleToStartP50: round(summarize(s2s).p50, 2),
    workflowTaskStartToCompleteP50: round(summarize(s2c).p50, 2),
    activityScheduleToCompleteP50: round(summarize(act).p50, 2),
    workflowTasksPerStep: round(wfts / steps, 2),
  };
}
