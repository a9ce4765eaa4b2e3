/**
 * What the client's modules (turns, reads, decisions, sessions, follow) need of a `TillerClient`: its
 * Temporal client, its task queue and its handles. Each takes the client itself, so what it calls of
 * the client (`handle`, `state`, `events` …) stays a method call on it.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';

/** A `TillerClient` as its modules see it. */
export interface ClientCore {
  readonly temporal: Client;
  readonly taskQueue: string;
  /** The Temporal workflow handle of a turn or a session. */
  handle(workflowId: string): WorkflowHandle;
}
