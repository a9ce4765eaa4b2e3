/**
 * Per-unit figures from a batch or a paused point: what one step (gated step, session turn, paused
 * turn) cost the cluster — history, PostgreSQL, CPU per service — and Temporal Cloud actions estimated
 * from its history's events (https://docs.temporal.io/cloud/actions: a workflow start, each activity
 * scheduled, each search-attribute upsert, timer, signal sent, update and query received; patch markers
 * and replays are not actions).
 */
import type { BatchResult } from './batches';
import type { PausedResult } from './paused';
import type { Delta } from './probe';

export const SERVICES = ['history', 'matching', 'frontend', 'temporal-worker', 'postgres', 'workers'] as const;

export interface UnitCost {
  events: number;
  historyBytes: number;
  statements: number;
  rowsWritten: number;
  walBytes: number;
  /** CPU ms per service, and the Temporal server's three main services together. */
  cpuMs: Record<(typeof SERVICES)[number], number>;
  serverCpuMs: number;
  /** Temporal Cloud actions (estimated from event types, plus the batch's queries). */
  actions: number;
}

const ACTION_EVENTS = [
  'WORKFLOW_EXECUTION_STARTED',
  'ACTIVITY_TASK_SCHEDULED',
  'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
  'TIMER_STARTED',
  'WORKFLOW_EXECUTION_SIGNALED',
  'WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
  'START_CHILD_WORKFLOW_EXECUTION_INITIATED',
];

export function actionsOf(eventTypes: Record<string, number>): number {
  return ACTION_EVENTS.reduce((n, t) => n + (eventTypes[t] ?? 0), 0);
}

function cpuOf(cost: Delta, units: number): UnitCost['cpuMs'] {
  return Object.fromEntries(SERVICES.map((s) => [s, (cost.cpuMs[s] ?? 0) / units])) as UnitCost['cpuMs'];
}

export function batchUnit(b: BatchResult): UnitCost {
  const cpuMs = cpuOf(b.cost, b.units);
  return {
    events: b.history.events / b.sampledUnits,
    historyBytes: b.history.bytes / b.sampledUnits,
    statements: b.cost.statements / b.units,
    rowsWritten: b.cost.rowsWritten / b.units,
    walBytes: b.cost.walBytes / b.units,
    cpuMs,
    serverCpuMs: cpuMs.history + cpuMs.matching + cpuMs.frontend,
    actions: actionsOf(b.history.eventTypes) / b.sampledUnits + (b.queries ?? 0) / b.units,
  };
}

export interface PausedFigures {
  turns: number;
  /** Least-squares slope over the points (base included), bytes per paused turn. */
  dbBytesPerTurn: { temporal: number; visibility: number };
  rssBytesPerTurn: Record<string, number>;
  /** What pausing one turn cost, over all points. */
  unit: Omit<UnitCost, 'events' | 'historyBytes' | 'actions'>;
  turnsPerSecond: number;
  /** Updates of a turn's visibility row while it was paused, and of them HOT (no new index entries). */
  visibilityUpdates?: { perTurn: number; hotPerTurn: number };
}

function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den ? num / den : Number.NaN;
}

export function pausedFigures(p: PausedResult): PausedFigures {
  const all = [{ ...p.base, seconds: 0 }, ...p.points];
  const xs = all.map((x) => x.turns);
  const turns = p.points.at(-1)?.turns ?? 0;
  const sum = (f: (d: Delta) => number) => p.points.reduce((a, x) => a + f(x.cost), 0);
  const cpuMs = Object.fromEntries(SERVICES.map((s) => [s, sum((d) => d.cpuMs[s] ?? 0) / turns])) as UnitCost['cpuMs'];
  const rssBytesPerTurn: Record<string, number> = {};
  for (const name of Object.keys(p.base.rssBytes))
    rssBytesPerTurn[name] = slope(
      xs,
      all.map((x) => x.rssBytes[name] ?? 0),
    );
  return {
    turns,
    dbBytesPerTurn: {
      temporal: slope(
        xs,
        all.map((x) => x.dbBytes.temporal),
      ),
      visibility: slope(
        xs,
        all.map((x) => x.dbBytes.visibility),
      ),
    },
    rssBytesPerTurn,
    unit: {
      statements: sum((d) => d.statements) / turns,
      rowsWritten: sum((d) => d.rowsWritten) / turns,
      walBytes: sum((d) => d.walBytes) / turns,
      cpuMs,
      serverCpuMs: cpuMs.history + cpuMs.matching + cpuMs.frontend,
    },
    turnsPerSecond: turns / p.points.reduce((a, x) => a + x.seconds, 0),
    ...visibilityUpdates(p, turns),
  };
}

/** From the visibility table's counters at the base and the last point (runs before them have none). */
function visibilityUpdates(p: PausedResult, turns: number): Pick<PausedFigures, 'visibilityUpdates'> {
  const from = p.base.visibility;
  const to = p.points.at(-1)?.visibility;
  if (from?.['row updates'] === undefined || to?.['row updates'] === undefined || !turns) return {};
  const per = (k: string) => ((to[k] ?? 0) - (from[k] ?? 0)) / turns;
  return { visibilityUpdates: { perTurn: per('row updates'), hotPerTurn: per('HOT updates') } };
}
