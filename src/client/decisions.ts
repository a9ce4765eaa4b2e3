/**
 * Deciding a turn's waiting calls: the `decide` update, its refusal as `DecisionRejectedError`, and
 * an encrypted answer the client has no key for explained (`keylessError`).
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { keylessError } from '../codec/encryption';
import { decideUpdate } from '../core/contract';
import { namedFor } from '../core/inline-turns';
import type { Decision, RecordedDecision } from '../core/schemas';
import type { ClientCore } from './core';

/** An update the workflow refused (unknown id, already decided, malformed, busy session …), with its reason. */
export class DecisionRejectedError extends Error {
  override readonly name = 'DecisionRejectedError';
}

/** `TillerClient.decide`: the `decide` update, a refusal thrown as `DecisionRejectedError`. */
export async function decide(
  client: ClientCore,
  turnId: string,
  decision: Decision,
  updateId?: string,
): Promise<RecordedDecision> {
  try {
    return await client.handle(turnId).executeUpdate(decideUpdate, {
      args: [namedFor(turnId, decision)],
      ...(updateId !== undefined && { updateId }),
    });
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) {
      throw new DecisionRejectedError(err.cause?.message ?? err.message);
    }
    throw keylessError(err) ?? err;
  }
}
