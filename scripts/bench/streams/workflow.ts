/**
 * The `@temporalio/workflow-streams` probe: a workflow that owns a WorkflowStream while an activity
 * publishes the same text chunks, at the same pace, that the scripted model types for Tiller's turn.
 */
import { proxyActivities, sleep } from '@temporalio/workflow';
import { WorkflowStream } from '@temporalio/workflow-streams/workflow';
import type { StreamProbeActivities } from './activities';

const { typeText } = proxyActivities<StreamProbeActivities>({ startToCloseTimeout: '5 minutes' });

export async function streamsProbe(chunks: number, intervalMs: number, batchIntervalMs: number): Promise<void> {
  new WorkflowStream();
  await typeText(chunks, intervalMs, batchIntervalMs);
  // Let subscribers collect the last batch before the workflow closes.
  await sleep('1 second');
}
