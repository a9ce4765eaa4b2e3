/** What a turn's history says went wrong inside the workflow, for the hostile-input tests. */
import type { Client } from '@temporalio/client';

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
