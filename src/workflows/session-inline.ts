/**
 * A session's turns inside its own workflow (`SessionInput.inlineTurns`). Each turn is ./turn.ts's body
 * run by the session: its model and tool calls are the session's activities, and its handlers
 * (`decide`, `summary`, `events`, `conversation`, `turnState`) are the session's. A turn then costs about
 * what a bare Temporal turn does: no child workflow to start and end, and no workflow tasks for either
 * (docs/capacity.md). A turn runs in a cancellation scope of its own, so `cancelTurn` ends the turn and
 * not the session; its result is held for `turnResult` until the next turn ends, and carried through
 * continue-as-new with the session.
 */
import { CancellationScope, condition, isCancellation, setHandler } from '@temporalio/workflow';
import { cancelTurnSignal, CANCEL_TURN_DESCRIPTION, turnResultUpdate, TURN_RESULT_DESCRIPTION } from '../core/contract';
import {
  formatZodError,
  TurnRef,
  type SessionCarry,
  type TurnInput,
  type TurnProgress,
  type TurnResult,
} from '../core/schemas';
import type { TurnState } from '../core/state';
import { refused } from './session-rules';
import { runTurn } from './turn';
import { turnResult } from './turn-result';
import { parseInput } from './turn-start';

export class InlineTurns {
  private running: { turnId: string; scope: CancellationScope; state?: TurnState } | undefined;

  constructor(
    private readonly sessionId: string,
    private readonly carry: SessionCarry,
  ) {
    setHandler(
      turnResultUpdate,
      async ({ turnId }) => {
        await condition(() => this.carry.lastResult?.turnId === turnId);
        return this.carry.lastResult!.result;
      },
      { validator: (raw) => this.checkHeld(raw), description: TURN_RESULT_DESCRIPTION },
    );
    // A signal cannot answer: one for another turn (or malformed) is ignored.
    setHandler(
      cancelTurnSignal,
      (raw) => {
        const ref = TurnRef.safeParse(raw);
        if (ref.success && ref.data.turnId === this.running?.turnId) this.running.scope.cancel();
      },
      { description: CANCEL_TURN_DESCRIPTION },
    );
  }

  /** The running turn as the session's state shows it: its status and what waits. */
  progress(): TurnProgress | undefined {
    const state = this.running?.state;
    return state && { turnId: state.turnId, status: state.status, pendingApprovals: state.pendingApprovals };
  }

  /**
   * Runs the turn; its failure is thrown as a child turn's is (a `TurnFailed` carrying its result). A
   * turn cancelled by `cancelTurn` ends `cancelled`; the session's own cancellation is thrown on.
   */
  async run(turnId: string, input: TurnInput): Promise<TurnResult> {
    const scope = new CancellationScope();
    const running: NonNullable<typeof this.running> = { turnId, scope };
    this.running = running;
    try {
      return await scope.run(() =>
        runTurn(parseInput(input), { turnId, inline: true, watch: (state) => (running.state = state) }),
      );
    } catch (err) {
      if (!isCancellation(err) || CancellationScope.current().consideredCancelled || !running.state) throw err;
      return turnResult(running.state, 'cancelled');
    } finally {
      this.running = undefined;
    }
  }

  /** `turnResult`'s validator: the running turn's (waited for) or the last one's; no other is held. */
  private checkHeld(raw: unknown): void {
    const ref = TurnRef.safeParse(raw);
    if (!ref.success) throw refused(`malformed turnResult: ${formatZodError(ref.error)}`);
    const { turnId } = ref.data;
    if (turnId === this.running?.turnId || turnId === this.carry.lastResult?.turnId) return;
    throw refused(
      `session ${this.sessionId} holds the result of its running or last turn only, not of ${turnId} (its summary is in the session's state)`,
    );
  }
}
