/**
 * The turn hostile decisions are aimed at: it reads the sentinel (call c1, done) and asks to delete
 * it (call c2, gated), and waits for a human.
 */
import type { Pending } from './decision-cases';
import { resetFiles, type FuzzEnv } from './env';
import { FREE_TOOL, GATED_TOOL, SENTINEL } from './model-cases';
import { turnInput } from './router';
import { queryState, settle } from './turn-probe';

export const PENDING_ID = 'c2';
export const DONE_ID = 'c1';

/** Starts the turn and waits for its approval request; the pending call, or what went wrong. */
export async function startAwaitingTurn(env: FuzzEnv, turnId: string): Promise<Pending | string> {
  resetFiles(env);
  env.router.route(turnId, [
    {
      toolCalls: [
        { id: DONE_ID, name: FREE_TOOL, arguments: { path: SENTINEL } },
        { id: PENDING_ID, name: GATED_TOOL, arguments: { path: SENTINEL } },
      ],
    },
  ]);
  await env.h.tiller.startTurn({ agent: 'assistant', input: turnInput(turnId), turnId });
  const settled = await settle(env.h.client, turnId);
  const answer = await queryState(env.h.client, turnId);
  const waiting = answer.ok ? answer.state.pendingApprovals.find((p) => p.id === PENDING_ID) : undefined;
  if (settled.kind !== 'awaiting' || !waiting) {
    return `setup: the turn did not wait for approval of ${PENDING_ID} (${settled.kind}; ${answer.ok ? answer.state.status : answer.error})`;
  }
  return { id: waiting.id, digest: waiting.argsDigest, doneId: DONE_ID };
}
