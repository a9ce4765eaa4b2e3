/**
 * A session's rules apart from its workflow: who may send into it, how it refuses a request, and how a
 * turn's trim of its conversation carries into the next turn. Pure (no commands).
 */
import { type ConversationMessage, type Principal, type SessionCarry, type TurnResult } from '../core/schemas';
import { summaryMessage, SUMMARY_PREFIX, usableCalibration } from '../core/context';
import { FailureType, rejection } from '../core/failures';

/**
 * Why a sender may not send into this session, if it may not: a session belongs to the principal
 * that created it (by name); one started without a principal (a Temporal client: the CLI, the
 * library, the `temporal` CLI) takes only sends without one, so a gateway caller never gets into it.
 */
export function strangerOf(sessionId: string, owner?: Principal, sender?: Principal): string | undefined {
  if (owner === undefined) {
    if (sender === undefined) return undefined;
    return `session ${sessionId} has no owner (it was started without a principal); ${sender.name} may not send into it`;
  }
  if (sender === undefined) {
    return `session ${sessionId} belongs to ${owner.name}; a send without a principal may not go into it`;
  }
  if (sender.name !== owner.name) {
    return `session ${sessionId} belongs to ${owner.name}; ${sender.name} may not send into it`;
  }
  return undefined;
}

/** A `send` or `revokeTrust` the session refuses (from a validator: nothing reaches history). */
export function refused(message: string) {
  return rejection(FailureType.SessionRequestRejected, message);
}

/**
 * A turn trimmed its history for the agent's context window: the session's conversation loses the same
 * oldest messages (and keeps the turn's summary in their place), so the next turn starts from there.
 */
export function keepContext(carry: SessionCarry, context: TurnResult['context']): void {
  if (!context) return;
  const calibration = usableCalibration(context.calibration);
  if (calibration) carry.calibration = calibration;
  if (context.dropped === 0 && context.summary === undefined) return;
  const rest = carry.conversation.slice(Math.min(context.dropped, carry.conversation.length));
  carry.conversation =
    context.summary !== undefined ? [summaryMessage(context.summary) as ConversationMessage, ...rest] : rest;
  if (context.summary !== undefined) carry.summary = context.summary;
  else if (!carry.conversation[0]?.content.startsWith(SUMMARY_PREFIX)) delete carry.summary;
}
