/**
 * Histories as the server stores them: events and encoded bytes of the workflows a batch ran (fetched
 * after the batch, outside its measured window), and what the events are, by type.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { pool } from '../bench/stats';

const EventType = temporal.api.enums.v1.EventType;

export interface HistoryTotals {
  workflows: number;
  events: number;
  bytes: number;
  /** Events by type, summed over the workflows. */
  eventTypes: Record<string, number>;
  /** Activities scheduled and markers recorded, by activity type and marker name (what the events are for). */
  activities: Record<string, number>;
  markers: Record<string, number>;
}

export async function histories(client: Client, workflowIds: string[]): Promise<HistoryTotals> {
  const totals: HistoryTotals = {
    workflows: workflowIds.length,
    events: 0,
    bytes: 0,
    eventTypes: {},
    activities: {},
    markers: {},
  };
  const count = (m: Record<string, number>, k: string | null | undefined) => (m[k ?? '?'] = (m[k ?? '?'] ?? 0) + 1);
  await pool(workflowIds, 8, async (id) => {
    const history = await client.workflow.getHandle(id).fetchHistory();
    const events = history.events ?? [];
    totals.events += events.length;
    totals.bytes += temporal.api.history.v1.History.encode(history).finish().length;
    for (const e of events) {
      const name = (EventType[e.eventType ?? 0] ?? 'UNKNOWN').replace(/^EVENT_TYPE_/, '');
      count(totals.eventTypes, name);
      if (e.activityTaskScheduledEventAttributes)
        count(totals.activities, e.activityTaskScheduledEventAttributes.activityType?.name);
      if (e.markerRecordedEventAttributes) {
        // A patch marker names its patch in its details; a local activity's names its activity.
        const details = e.markerRecordedEventAttributes.details ?? {};
        const id = details.patch_data?.payloads?.[0]?.data ?? details.data?.payloads?.[0]?.data;
        const text = id ? Buffer.from(id).toString('utf8').slice(0, 80) : '';
        count(totals.markers, `${e.markerRecordedEventAttributes.markerName}${text ? ` ${text}` : ''}`);
      }
    }
  });
  return totals;
}
