import { interleaving, joinPieces, shares } from '../../scripts/capacity/rounds';
import type { Piece } from '../../scripts/capacity/batches';
import type { Delta } from '../../scripts/capacity/probe';

const delta = (n: number): Delta => ({
  seconds: n,
  statements: 10 * n,
  writeStatements: 4 * n,
  rowsWritten: 5 * n,
  rowsDeleted: 0,
  statementWalBytes: 100 * n,
  walBytes: 120 * n,
  dbBytes: 0,
  writes: { 'insert history_node': { calls: n, rows: 2 * n } },
  reads: n > 1 ? { 'select executions': { calls: n, rows: n } } : {},
  cpuMs: { history: 7 * n, workers: 3 * n },
});

const piece = (n: number, stepTimes: number[], queries?: number): Piece => ({
  loop: 'tiller',
  kind: 'gated',
  workers: 3,
  units: 10 * n,
  turns: 5 * n,
  seconds: n,
  stepTimes,
  cost: delta(n),
  history: {
    workflows: n,
    events: 20 * n,
    bytes: 1000 * n,
    eventTypes: { WORKFLOW_EXECUTION_STARTED: n },
    activities: { callModel: 2 * n },
    markers: n > 1 ? { 'core_patch approvals-at-cost': n } : {},
  },
  sampledUnits: 2 * n,
  ...(queries !== undefined && { queries }),
});

describe('capacity: batches in interleaved pieces', () => {
  test('the loops take turns, first as ordered and then reversed, so a linear drift falls on both alike', () => {
    expect(interleaving(['tiller', 'bare'], 1)).toEqual(['tiller', 'bare']);
    expect(interleaving(['tiller', 'bare'], 2)).toEqual(['tiller', 'bare', 'bare', 'tiller']);
    expect(interleaving(['bare', 'tiller'], 3)).toEqual(['bare', 'tiller', 'tiller', 'bare', 'bare', 'tiller']);
    // Each loop's mean position is the same with an even number of pieces.
    const at = interleaving(['tiller', 'bare'], 4);
    const mean = (loop: string) =>
      at.reduce((s, l, i) => s + (l === loop ? i : 0), 0) / at.filter((l) => l === loop).length;
    expect(mean('tiller')).toBe(mean('bare'));
  });

  test('turns are shared out evenly, none lost', () => {
    expect(shares(40, 2)).toEqual([20, 20]);
    expect(shares(5, 2)).toEqual([3, 2]);
    expect(shares(7, 3)).toEqual([3, 2, 2]);
    expect(shares(2, 4).reduce((a, b) => a + b, 0)).toBe(2);
  });

  test("a loop's pieces join into one batch: sums, step times together, per-second over the windows' time", () => {
    const joined = joinPieces([piece(1, [10, 30], 4), piece(2, [20])]);
    expect(joined).toMatchObject({
      loop: 'tiller',
      kind: 'gated',
      workers: 3,
      units: 30,
      turns: 15,
      seconds: 3,
      perSecond: 10,
      sampledUnits: 6,
      queries: 4,
      pieces: 2,
    });
    expect(joined.stepMs.n).toBe(3);
    expect(joined.stepMs.p50).toBe(20);
    expect(joined.cost).toEqual({
      seconds: 3,
      statements: 30,
      writeStatements: 12,
      rowsWritten: 15,
      rowsDeleted: 0,
      statementWalBytes: 300,
      walBytes: 360,
      dbBytes: 0,
      writes: { 'insert history_node': { calls: 3, rows: 6 } },
      reads: { 'select executions': { calls: 2, rows: 2 } },
      cpuMs: { history: 21, workers: 9 },
    });
    expect(joined.history).toEqual({
      workflows: 3,
      events: 60,
      bytes: 3000,
      eventTypes: { WORKFLOW_EXECUTION_STARTED: 3 },
      activities: { callModel: 6 },
      markers: { 'core_patch approvals-at-cost': 2 },
    });
  });

  test('a batch without queries joins without them', () => {
    expect(joinPieces([piece(1, [5]), piece(1, [5])])).not.toHaveProperty('queries');
    expect(() => joinPieces([])).toThrow('no pieces');
  });
});
