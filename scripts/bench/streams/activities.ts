/** The probe's publisher: one `text` item per chunk, through the library's batching client. */
import { Context } from '@temporalio/activity';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';

export interface ProbeChunk {
  i: number;
  text: string;
  /** Date.now() when published (the subscriber runs in the same process). */
  at: number;
}

export const streamProbeActivities = {
  async typeText(chunks: number, intervalMs: number, batchIntervalMs: number): Promise<void> {
    const client = WorkflowStreamClient.fromWithinActivity({ batchInterval: batchIntervalMs });
    const topic = client.topic<ProbeChunk>('text');
    try {
      for (let i = 0; i < chunks; i++) {
        await new Promise((r) => setTimeout(r, intervalMs));
        topic.publish({ i, text: 'xxxxxxxx', at: Date.now() });
        Context.current().heartbeat();
      }
    } finally {
      await client[Symbol.asyncDispose]();
    }
  },
};

export type StreamProbeActivities = typeof streamProbeActivities;
