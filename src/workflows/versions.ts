/**
 * Which recorded path a turn's run takes. Every change to workflow code that alters command order has
 * a patch (./patches.ts), and `patched(id)` records a marker the first time a run reaches it — two
 * history events, since core also upserts the `TemporalChangeVersion` search attribute. A run started
 * on this version records one marker at its start (PATCH_LEAN_TURN) and takes every earlier patch's
 * path without its own; a run recorded before it (no marker at its start) checks each patch as before.
 */
import { patched } from '@temporalio/workflow';
import { PATCH_LEAN_TURN, type PatchBeforeLean } from './patches';

export class RunVersion {
  /**
   * Read once, in the run's first activation: `patched` is not memoised, and a run recorded without
   * the marker would otherwise take the new path from its first task after replay.
   */
  readonly lean: boolean = patched(PATCH_LEAN_TURN);

  /** Whether the run takes patch `id`'s path: always in a lean run, else as `patched(id)` says. */
  has(id: PatchBeforeLean): boolean {
    return this.lean || patched(id);
  }
}
