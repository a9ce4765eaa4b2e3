/**
 * Paused turns held: turns that called a gated tool and wait for a human, started in chunks up to each
 * count, and at each count what they hold — the two databases' size, each process's resident memory —
 * and what pausing them cost (statements, rows, WAL, CPU per service). A turn counts as paused once
 * visibility lists it as `TillerStatus = "awaiting_approval"`. The bare loop's turns (`baselineGated`: a
 * workflow that waits for an update after its model call, with no search attributes of its own) are held
 * the same way, before or after Tiller's as the batches are ordered: what Temporal itself keeps for a
 * waiting workflow. One counts as paused once its `state` query says it waits.
 */
import { GATED_AGENT } from '../bench/fixture';
import { pool } from '../bench/stats';
import { polled, untilBareWaits, type DriveContext, type Loop } from './batches';
import { measured } from './measure';
import { planInput } from './model';
import { snapshot, visibilityRelations, type Delta } from './probe';

export interface PausedPoint {
  turns: number;
  dbBytes: { temporal: number; visibility: number };
  rssBytes: Record<string, number>;
  /**
   * The visibility database's relations by size, and the visibility table's live and dead rows and its row
   * updates so far (of them HOT: no new index entries).
   */
  visibility?: Record<string, number>;
  /** Seconds to start and pause this point's new turns. */
  seconds: number;
  /** What pausing this point's new turns cost (idle rate taken off). */
  cost: Delta;
}

export interface PausedResult {
  /** Whose turns were held (results before the bare loop's were held are Tiller's). */
  loop?: Loop;
  base: Omit<PausedPoint, 'cost' | 'seconds'>;
  points: PausedPoint[];
}

const QUERY = 'TillerStatus = "awaiting_approval"';

async function untilPaused(ctx: DriveContext, want: number): Promise<void> {
  let count = 0;
  const paused = async () => {
    count = (await ctx.tiller.temporal.workflow.count(QUERY)).count;
    return count >= want;
  };
  // Visibility is written by the history service's visibility queue, after the turn's own task.
  await polled(paused, () => `only ${count} of ${want} turns paused`, 180_000, 500);
}

export async function runPaused(
  ctx: DriveContext,
  counts: number[],
  lanes: number,
  loop: Loop = 'tiller',
): Promise<PausedResult> {
  const first = await snapshot(ctx.probe.cluster, ctx.probe.pg);
  const base = {
    turns: 0,
    dbBytes: first.pg.dbBytes,
    rssBytes: first.rssBytes,
    visibility: await visibilityRelations(ctx.probe.pg),
  };
  const points: PausedPoint[] = [];
  const already = (await ctx.tiller.temporal.workflow.count(QUERY)).count;
  let held = 0;
  let n = 0;
  for (const target of counts) {
    const keys = Array.from({ length: target - held }, () => `cap-paused-${loop}-${Date.now().toString(36)}-${n++}`);
    const asked = new Map<string, () => void>();
    ctx.model.onGated = (key) => asked.get(key)?.();
    const t0 = performance.now();
    const { cost } = await measured(ctx.probe, async () => {
      await pool(keys, lanes, async (key) => {
        const gated = new Promise<void>((resolve) => asked.set(key, resolve));
        const input = planInput({ key, steps: 0, gated: 1 });
        if (loop === 'tiller') await ctx.tiller.startTurn({ agent: GATED_AGENT, input, turnId: key });
        else
          await ctx.tiller.temporal.workflow.start('baselineGated', {
            taskQueue: ctx.bareQueue,
            workflowId: key,
            args: [input, 0, 1],
          });
        await gated;
        asked.delete(key);
        ctx.model.requests.delete(key);
        if (loop === 'bare') await untilBareWaits(ctx.tiller.temporal, key, 0, 180_000);
      });
      if (loop === 'tiller') await untilPaused(ctx, already + target);
    });
    const seconds = (performance.now() - t0) / 1000;
    held = target;
    const snap = await snapshot(ctx.probe.cluster, ctx.probe.pg);
    const visibility = await visibilityRelations(ctx.probe.pg);
    points.push({ turns: held, dbBytes: snap.pg.dbBytes, rssBytes: snap.rssBytes, visibility, seconds, cost });
    ctx.log(
      `paused ${held} (${loop}): database ${((snap.pg.dbBytes.temporal + snap.pg.dbBytes.visibility) / 2 ** 20).toFixed(1)} MiB, ${keys.length} paused in ${seconds.toFixed(1)} s`,
    );
  }
  ctx.model.onGated = () => undefined;
  return { loop, base, points };
}
