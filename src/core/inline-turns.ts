/**
 * The ids of a session's inline turns (`SessionInput.inlineTurns`): `<session id>#turn-<n>`. Such a turn
 * runs inside its session's workflow, so a client addresses it through the session's workflow id, and
 * names the turn where the session must know which (`decide`'s `turnId`, `turnResult`, `cancelTurn`).
 */
const INLINE_TURN = /^(.+)#turn-[1-9]\d*$/s;

/** The id of a session's `seq`th turn when it runs inside the session. */
export function inlineTurnId(sessionId: string, seq: number): string {
  return `${sessionId}#turn-${seq}`;
}

/** The session whose workflow runs this turn, if the id is an inline turn's; otherwise undefined. */
export function sessionOfTurn(turnId: string): string | undefined {
  return INLINE_TURN.exec(turnId)?.[1];
}

/** The workflow a turn's messages go to: its session's for an inline turn, else its own. */
export function workflowOfTurn(turnId: string): string {
  return sessionOfTurn(turnId) ?? turnId;
}

/** A decision for `turnId`, naming the turn when it is an inline one (its session refuses it for another turn). */
export function namedFor<T extends object>(turnId: string, decision: T): T | (T & { turnId: string }) {
  return sessionOfTurn(turnId) !== undefined ? { ...decision, turnId } : decision;
}
