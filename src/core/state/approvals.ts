/**
 * The turn state's approvals: calls waiting for a human (`pendingApprovals`), reminded, escalated,
 * then approved, denied or timed out, and the trust grants decisions leave. Part of the reducer
 * (index.ts): pure.
 */
import { toolCall } from './calls';
import type { TurnEventOf, TurnState } from './types';

/** The approval and decision events. */
export type ApprovalEvent = TurnEventOf<
  | 'APPROVAL_REQUESTED'
  | 'APPROVAL_REMINDED'
  | 'APPROVAL_ESCALATED'
  | 'TOOL_APPROVED'
  | 'TOOL_DENIED'
  | 'APPROVAL_TIMED_OUT'
  | 'TRUST_GRANTED'
>;

function dropPending(state: TurnState, id: string): void {
  state.pendingApprovals = state.pendingApprovals.filter((p) => p.id !== id);
}

/** Folds an approval or decision event into the state. */
export function foldApprovalEvent(state: TurnState, event: ApprovalEvent): void {
  switch (event.type) {
    case 'APPROVAL_REQUESTED': {
      const call = toolCall(state, event.toolCallId, event.tool, event.args);
      call.status = 'awaiting_approval';
      state.pendingApprovals.push({
        id: event.toolCallId,
        tool: event.tool,
        args: event.args,
        argsDigest: event.argsDigest,
        requestedAt: event.at,
        ...(event.expiresAt !== undefined && { expiresAt: event.expiresAt }),
        ...(event.approvers !== undefined && { approvers: event.approvers }),
        ...(event.escalatesTo !== undefined && { escalatesTo: event.escalatesTo }),
        ...(event.preview !== undefined && { preview: event.preview }),
      });
      break;
    }
    case 'APPROVAL_REMINDED': {
      const pending = state.pendingApprovals.find((p) => p.id === event.toolCallId);
      if (pending) pending.reminders = event.reminder;
      break;
    }
    case 'APPROVAL_ESCALATED': {
      const pending = state.pendingApprovals.find((p) => p.id === event.toolCallId);
      if (pending) {
        pending.approvers = event.approvers;
        pending.escalated = true;
        delete pending.escalatesTo;
        if (event.expiresAt !== undefined) pending.expiresAt = event.expiresAt;
        else delete pending.expiresAt;
      }
      const call = state.toolCalls.find((c) => c.id === event.toolCallId);
      if (call) call.escalated = { at: event.at, approvers: event.approvers };
      break;
    }
    case 'TOOL_APPROVED': {
      const { id: _id, ...decision } = event.decision;
      toolCall(state, event.toolCallId, event.tool, event.args).decision = decision;
      dropPending(state, event.toolCallId);
      break;
    }
    case 'TOOL_DENIED': {
      const call = toolCall(state, event.toolCallId, event.tool, event.args);
      call.status = 'denied';
      call.result = event.result;
      call.endedAt = event.at;
      if (event.decision) {
        const { id: _id, ...decision } = event.decision;
        call.decision = decision;
      }
      dropPending(state, event.toolCallId);
      break;
    }
    case 'APPROVAL_TIMED_OUT': {
      const call = toolCall(state, event.toolCallId, event.tool, undefined);
      call.status = 'timed_out';
      call.result = event.result;
      call.endedAt = event.at;
      dropPending(state, event.toolCallId);
      break;
    }
    case 'TRUST_GRANTED':
      if (!state.trust.some((t) => t.tool === event.tool && t.scope === event.scope)) {
        state.trust.push({
          tool: event.tool,
          scope: event.scope,
          ...(event.approver !== undefined && { approver: event.approver }),
          at: event.at,
        });
      }
      break;
  }
}
