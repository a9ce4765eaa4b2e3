/**
 * Reads a turn's live model text: the running `callModel` activity's newest heartbeat, from
 * `DescribeWorkflowExecution` (a server call: no worker, no history events). See src/core/live-text.ts.
 */
import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { ModelProgress, type ModelActivitySnapshot } from '../core/live-text';
import { workflowOfTurn } from '../core/inline-turns';

export const MODEL_ACTIVITY = 'callModel';

export interface TurnActivity {
  /** Whether the workflow still runs (describe's status). */
  running: boolean;
  /** The model call in flight, if any. */
  model?: ModelActivitySnapshot;
}

/** The turn's model activity as the server sees it now; a malformed heartbeat reads as no text. */
export async function describeModelActivity(client: Client, turnId: string): Promise<TurnActivity> {
  const { status, raw } = await client.workflow.getHandle(workflowOfTurn(turnId)).describe();
  const running = status.name === 'RUNNING';
  const pending = raw.pendingActivities?.find((a) => a.activityType?.name === MODEL_ACTIVITY);
  if (!running || !pending) return { running };
  const model: ModelActivitySnapshot = { attempt: pending.attempt || 1 };
  const payloads = pending.heartbeatDetails?.payloads;
  if (payloads?.length) {
    const details = await decodeFromPayloadsAtIndex(client.options.loadedDataConverter, 0, payloads).catch(
      () => undefined,
    );
    const parsed = ModelProgress.safeParse(details);
    if (parsed.success) model.progress = parsed.data;
  }
  return { running, model };
}
