/**
 * The turn's recorder: the one way anything in a turn says what happened. Each event is bounded
 * (every string clipped by what it holds, JSON values bounded: src/core/bounds.ts) and folded into
 * the state (what `state` answers), then mirrored where others look — search attributes and current
 * details (./visibility.ts), the parent's progress, and the metrics (./metrics.ts).
 */
import { log } from '@temporalio/workflow';
import { boundEvent } from '../core/bounds';
import type { TurnEventBody } from '../core/state/events';
import type { HookFailure } from '../core/spec';
import { emit, type TurnState } from '../core/state';
import { TurnClock } from './clock';
import { countEvent } from './metrics';
import type { RunVersion } from './versions';
import { Visibility } from './visibility';

export class TurnRecorder {
  private visibility: Visibility | undefined;
  private model = '';
  /** The time every recorded event and deadline of the turn reads (./clock.ts). */
  readonly clock = new TurnClock();

  constructor(
    readonly state: TurnState,
    /** Which recorded path the run takes (every part of the turn asks it through its recorder). */
    readonly version: RunVersion,
  ) {}

  /** The turn's time as ISO-8601: workflow time, replay-stable after a local activity too (./clock.ts). */
  now(): string {
    return this.clock.iso();
  }

  /** Once the agent is known: where to mirror the state, and the model that labels the metrics. */
  startMirroring(opts: { model: string; searchAttributes: boolean; parentTurnId?: string }): void {
    this.model = opts.model;
    const { lean, atCost } = this.version;
    this.visibility = new Visibility(this.state, opts.searchAttributes, opts.parentTurnId, lean, atCost);
  }

  /** Mirrors the state as it is now (a run that continued as new starts with no event to record). */
  mirrorNow(): void {
    this.visibility?.sync();
  }

  /** Records `body` at the turn's time. */
  record(body: TurnEventBody): void {
    emit(this.state, boundEvent(body), this.now());
    this.visibility?.sync();
    countEvent(body, { agent: this.state.agent, model: this.model });
  }

  /** Hook failures never fail the turn: each is logged and recorded as HOOK_FAILED. */
  hookFailures(failures: readonly HookFailure[], toolCallId?: string): void {
    for (const f of failures) {
      log.warn('hook failed', { hook: f.hook, hookName: f.hookName, error: f.error, toolCallId });
      this.record({ type: 'HOOK_FAILED', ...f, ...(toolCallId !== undefined && { toolCallId }) });
    }
  }
}
