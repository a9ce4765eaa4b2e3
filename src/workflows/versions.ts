/**
 * Which recorded path a turn's run takes. Every change to workflow code that alters command order has
 * a patch (./patches.ts), and `patched(id)` records a marker the first time a run reaches it — two
 * history events, since core also upserts the `TemporalChangeVersion` search attribute. A run started
 * on this version records one marker at its start (PATCH_WINDOW_IN_MODEL_CALL) and takes every earlier
 * patch's path without its own; a run recorded with PATCH_AT_COST's or PATCH_LEAN_TURN's marker takes
 * that version's path; a run recorded before them (no marker at its start) checks each patch as before.
 *
 * The marker is what makes a turn safe to move between versions: a worker of any later version, seeing
 * it in the history, takes the same path. (A path said in the turn's input instead would save the two
 * events, but a worker from before it ignores the input's say and records its own path, which a later
 * worker replaying the turn would then contradict: test/integration/versioning.test.ts.)
 */
import { patched } from '@temporalio/workflow';
import { PATCH_AT_COST, PATCH_LEAN_TURN, PATCH_WINDOW_IN_MODEL_CALL, type PatchBeforeLean } from './patches';

export class RunVersion {
  /**
   * PATCH_WINDOW_IN_MODEL_CALL's path: the context window retries a refused prompt from inside the model
   * call. Every marker is read once, in the run's first activation, newest first: a new run records
   * only the newest.
   */
  readonly windowInModelCall: boolean = patched(PATCH_WINDOW_IN_MODEL_CALL);
  /**
   * PATCH_AT_COST's path: a gated call of a tool without a preview is not previewed (its model call
   * checked it). Both are read once, in the run's first activation: `patched` is not memoised, and a run
   * recorded without the marker would otherwise take the new path from its first task after replay.
   */
  readonly atCost: boolean = this.windowInModelCall || patched(PATCH_AT_COST);
  /** Every patch before PATCH_LEAN_TURN taken without its marker; start and preview in local activities. */
  readonly lean: boolean = this.atCost || patched(PATCH_LEAN_TURN);

  /** Whether the run takes patch `id`'s path: always in a lean run, else as `patched(id)` says. */
  has(id: PatchBeforeLean): boolean {
    return this.lean || patched(id);
  }
}
