/**
 * A batch of each loop, run in interleaved pieces. With P pieces the loops take turns A B, B A, A B …,
 * each piece a measured window of its own share of the units, so a drift in the machine's speed across
 * the pair (another process, a CPU's clock, caches warming) falls on both loops alike instead of on
 * whichever ran second; a drift linear in time cancels exactly when P is even. A loop's pieces are then
 * one batch: their windows' costs, histories and step times added together.
 */
import { roundSummary, summarize } from '../bench/stats';
import { runPiece, type BatchOptions, type BatchResult, type DriveContext, type Loop, type Piece } from './batches';
import type { HistoryTotals } from './history';
import type { Delta, WriteCounts } from './probe';

/** Histories of this many turns per batch, over its pieces: enough for a mean, not a window of its own. */
const SAMPLE_TURNS = 12;

export interface PairOptions extends Omit<BatchOptions, 'loop' | 'sampleTurns'> {
  /** Measured windows per loop. */
  pieces: number;
}

/** The loop of each piece, in the order they run: `order`, then reversed, and so on. */
export function interleaving(order: readonly [Loop, Loop], pieces: number): Loop[] {
  const out: Loop[] = [];
  for (let i = 0; i < pieces; i++) out.push(...(i % 2 === 0 ? order : ([order[1], order[0]] as const)));
  return out;
}

/** `total` split into `parts` sizes that differ by at most one, larger first. */
export function shares(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0));
}

/** Runs both loops' batches in interleaved pieces; returns each loop's joined batch, in `order`. */
export async function runPair(
  ctx: DriveContext,
  order: readonly [Loop, Loop],
  o: PairOptions,
  onPiece?: (piece: Piece, index: number) => void,
): Promise<BatchResult[]> {
  const turns = Math.max(1, Math.ceil(o.units / o.perTurn));
  const pieces = Math.max(1, Math.min(o.pieces, turns));
  const turnShares = shares(turns, pieces);
  const sampleTurns = Math.ceil(SAMPLE_TURNS / pieces);
  const done: Record<Loop, Piece[]> = { tiller: [], bare: [] };
  const { pieces: _asked, ...batch } = o;
  for (const [i, loop] of interleaving(order, pieces).entries()) {
    const index = Math.floor(i / 2);
    const share = turnShares[index]!;
    const piece = await runPiece(ctx, { ...batch, loop, units: share * o.perTurn, sampleTurns });
    done[loop].push(piece);
    onPiece?.(piece, index);
  }
  return order.map((loop) => joinPieces(done[loop]));
}

/** A loop's pieces as one batch. */
export function joinPieces(pieces: readonly Piece[]): BatchResult {
  const [first] = pieces;
  if (!first) throw new Error('joinPieces: no pieces');
  const sum = (f: (p: Piece) => number) => pieces.reduce((n, p) => n + f(p), 0);
  const units = sum((p) => p.units);
  const seconds = sum((p) => p.seconds);
  const queries = pieces.some((p) => p.queries !== undefined) ? sum((p) => p.queries ?? 0) : undefined;
  return {
    loop: first.loop,
    kind: first.kind,
    workers: first.workers,
    units,
    turns: sum((p) => p.turns),
    seconds,
    perSecond: units / seconds,
    stepMs: roundSummary(summarize(pieces.flatMap((p) => p.stepTimes))),
    cost: pieces.map((p) => p.cost).reduce(addDeltas),
    history: pieces.map((p) => p.history).reduce(addHistories),
    sampledUnits: sum((p) => p.sampledUnits),
    ...(queries !== undefined && { queries }),
    pieces: pieces.length,
  };
}

function addCounts(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
}

function addWrites(a: WriteCounts, b: WriteCounts): WriteCounts {
  const out: WriteCounts = { ...a };
  for (const [k, w] of Object.entries(b)) {
    const was = out[k] ?? { calls: 0, rows: 0 };
    out[k] = { calls: was.calls + w.calls, rows: was.rows + w.rows };
  }
  return out;
}

export function addDeltas(a: Delta, b: Delta): Delta {
  return {
    seconds: a.seconds + b.seconds,
    statements: a.statements + b.statements,
    writeStatements: a.writeStatements + b.writeStatements,
    rowsWritten: a.rowsWritten + b.rowsWritten,
    rowsDeleted: a.rowsDeleted + b.rowsDeleted,
    statementWalBytes: a.statementWalBytes + b.statementWalBytes,
    walBytes: a.walBytes + b.walBytes,
    dbBytes: a.dbBytes + b.dbBytes,
    writes: addWrites(a.writes, b.writes),
    reads: addWrites(a.reads, b.reads),
    cpuMs: addCounts(a.cpuMs, b.cpuMs),
  };
}

export function addHistories(a: HistoryTotals, b: HistoryTotals): HistoryTotals {
  return {
    workflows: a.workflows + b.workflows,
    events: a.events + b.events,
    bytes: a.bytes + b.bytes,
    eventTypes: addCounts(a.eventTypes, b.eventTypes),
    activities: addCounts(a.activities, b.activities),
    markers: addCounts(a.markers, b.markers),
  };
}
