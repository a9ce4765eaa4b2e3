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
}

export async function histories(client: Client, workflowIds: string[]): Promise<HistoryTotals> {
  const totals: HistoryTotals = { workflows: workflowIds.length, events: 0, bytes: 0, eventTypes: {} };
  await pool(workflowIds, 8, async (id) => {
    const history = await client.workflow.getHandle(id).fetchHistory();
    const events = history.events ?? [];
    totals.events += events.length;
    totals.bytes += temporal.api.history.v1.History.encode(history).finish().length;
    for (const e of events) {
      const name = (EventType[e.eventType ?? 0] ?? 'UNKNOWN').replace(/^EVENT_TYPE_/, '');
      totals.eventTypes[name] = (totals.eventTypes[name] ?? 0) + 1;
    }
  });
  return totals;
}
