/**
 * Sessions: the next input of a conversation sent with update-with-start (the session started on first
 * use, a send racing its previous turn's close retried), and a session's trust grants revoked.
 */
import { WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import {
  revokeTrustUpdate,
  sendUpdate,
  sessionDetails,
  sessionSummary,
  TillerSession,
  WORKFLOW_TYPE_SESSION,
} from '../core/contract';
import type { Principal, SessionInput, TrustGrant } from '../core/schemas';
import type { ClientCore } from './core';
import { DecisionRejectedError } from './decisions';
import { withStartAttributes, type TurnStarter } from './turns';

/** A session's options on first use (see `send`), and who sends. */
export type SendOptions = Omit<SessionInput, 'carried' | 'owner'> & {
  /**
   * Who sends: the first send makes them the session's owner, and later sends must come from the
   * same name. Without one, the session takes only sends without a principal (Temporal clients).
   */
  principal?: Principal;
};

/** `TillerClient.send`: the `send` update, with the session's start; returns the turn id of the turn it runs. */
export async function send(
  client: TurnStarter,
  sessionId: string,
  input: string,
  opts: SendOptions,
): Promise<{ turnId: string }> {
  const { principal, ...options } = opts;
  const session: Omit<SessionInput, 'carried'> = { ...options, ...(principal && { owner: principal }) };
  // The previous turn's result can reach a caller a moment before its session has taken it in:
  // when the session calls a turn "still running" that has in fact closed, try again shortly.
  for (let attempt = 0; ; attempt++) {
    try {
      return await withStartAttributes(client, (withAttributes) =>
        client.temporal.workflow.executeUpdateWithStart(sendUpdate, {
          args: [{ input, ...(principal && { principal }) }],
          startWorkflowOperation: sessionStart(client, sessionId, session, withAttributes),
        }),
      );
    } catch (err) {
      if (!(err instanceof WorkflowUpdateFailedError)) throw err;
      const message = err.cause?.message ?? err.message;
      const busy = /still running turn (\S+);/.exec(message)?.[1];
      if (!busy || attempt >= 20 || (await isOpen(client, busy))) throw new DecisionRejectedError(message);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * The session workflow's start, for update-with-start: an open session of that id is used as it is.
 * With `TillerSession` (its own id) when the client starts with search attributes: the session then
 * starts its turns with theirs (src/workflows/session.ts).
 */
function sessionStart(
  client: ClientCore,
  sessionId: string,
  opts: Omit<SessionInput, 'carried'>,
  withAttributes: boolean,
) {
  return new WithStartWorkflowOperation(WORKFLOW_TYPE_SESSION, {
    workflowId: sessionId,
    taskQueue: client.taskQueue,
    args: [opts],
    workflowIdConflictPolicy: 'USE_EXISTING',
    ...(withAttributes && { typedSearchAttributes: [{ key: TillerSession, value: sessionId }] }),
    staticSummary: sessionSummary(sessionId, opts.agent),
    staticDetails: sessionDetails(sessionId, opts.agent),
  });
}

/** Whether the workflow still runs. */
async function isOpen(client: ClientCore, workflowId: string): Promise<boolean> {
  const { status } = await client.handle(workflowId).describe();
  return status.name === 'RUNNING';
}

/** `TillerClient.revokeTrust`: the `revokeTrust` update; a refusal thrown as `DecisionRejectedError`. */
export async function revokeTrust(
  client: ClientCore,
  sessionId: string,
  tool: string,
  scope?: 'turn' | 'session',
): Promise<TrustGrant[]> {
  try {
    return await client.handle(sessionId).executeUpdate(revokeTrustUpdate, {
      args: [{ tool, ...(scope !== undefined && { scope }) }],
    });
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) throw new DecisionRejectedError(err.cause?.message ?? err.message);
    throw err;
  }
}
