/** The session's message names: part of the wire contract like the turn's (messages.ts). */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { RevokeTrustInput, SendInput, SessionState, TrustGrant, TurnProgress } from '../core/schemas';

export const WORKFLOW_TYPE_SESSION = 'agentSession';

export const sessionStateQuery = defineQuery<SessionState>('state');
export const sendUpdate = defineUpdate<{ turnId: string }, [SendInput]>('send');
export const revokeTrustUpdate = defineUpdate<TrustGrant[], [RevokeTrustInput]>('revokeTrust');
/** Sent by a session's turn to its session when its status or pending approvals change. */
export const turnProgressSignal = defineSignal<[TurnProgress]>('turnProgress');

export const SESSION_STATE_DESCRIPTION =
  'The session: its turns, trust grants, usage across turns, and the pending approvals of the current turn.';
export const SEND_DESCRIPTION =
  'Start the next turn: {"input": "..."}. Returns {"turnId"}. Rejected while a turn is still running.';
export const REVOKE_TRUST_DESCRIPTION =
  'Revoke a trust grant: {"tool": "...", "scope"?: "session"}. Takes effect from the next turn. Returns the remaining grants.';
