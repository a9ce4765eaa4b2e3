/**
 * Which recorded path a turn's run takes. Every change to workflow code that alters command order has
 * a patch (./patches.ts), and `patched(id)` records a marker the first time a run reaches it — two
 * history events, since core also upserts the `TemporalChangeVersion` search attribute.
 *
 * - A run whose input says `runVersion` ≥ TURN_RUN_VERSION (Tiller's clients, sessions and sub-agents
 *   set it) takes the newest path and records no marker: its start event says which path it takes.
 * - A run started without it (another SDK, the `temporal` CLI) records one marker, PATCH_AT_COST, and
 *   takes the same path.
 * - A run recorded before PATCH_AT_COST takes PATCH_LEAN_TURN's path when its history has that marker
 *   (every earlier patch's path without its own), else checks each patch as before.
 */
import { patched } from '@temporalio/workflow';
import { TURN_RUN_VERSION } from '../core/contract';
import { PATCH_AT_COST, PATCH_LEAN_TURN, type PatchBeforeLean } from './patches';

export class RunVersion {
  /** Every patch before PATCH_LEAN_TURN taken without its marker; start and preview in local activities. */
  readonly lean: boolean;
  /** PATCH_AT_COST's path: a gated call without a preview is not previewed (its model call checked it). */
  readonly atCost: boolean;

  /**
   * Read once, in the run's first activation: `patched` is not memoised, and a run recorded without
   * the marker would otherwise take the new path from its first task after replay.
   */
  constructor(declared?: number) {
    this.atCost = (declared !== undefined && declared >= TURN_RUN_VERSION) || patched(PATCH_AT_COST);
    this.lean = this.atCost || patched(PATCH_LEAN_TURN);
  }

  /** Whether the run takes patch `id`'s path: always in a lean run, else as `patched(id)` says. */
  has(id: PatchBeforeLean): boolean {
    return this.lean || patched(id);
  }
}
