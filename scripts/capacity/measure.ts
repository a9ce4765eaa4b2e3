/**
 * A measured window: a snapshot before, the work, the cluster let settle (until its statements per
 * half second are back to what it does idle, at most 6 s: visibility and task clean-up trail a turn's
 * end), a snapshot after — and the idle rate, measured once with nothing running, taken off.
 */
import type { Cluster } from '../cluster/types';
import { delta, pgSnapshot, snapshot, type Delta, type PgConfig } from './probe';

export interface Probe {
  cluster: Cluster;
  pg: PgConfig;
  /** What the cluster does per second with nothing running (set by `measureIdle`). */
  idle?: Delta;
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Rate × seconds of `idle` taken off `d` (never below zero). */
function minusIdle(d: Delta, idle: Delta | undefined): Delta {
  if (!idle) return d;
  const f = d.seconds / idle.seconds;
  const off = (x: number, y: number) => Math.max(0, x - y * f);
  const cpuMs: Record<string, number> = {};
  for (const [k, v] of Object.entries(d.cpuMs)) cpuMs[k] = off(v, idle.cpuMs[k] ?? 0);
  return {
    ...d,
    statements: off(d.statements, idle.statements),
    writeStatements: off(d.writeStatements, idle.writeStatements),
    rowsWritten: off(d.rowsWritten, idle.rowsWritten),
    rowsDeleted: off(d.rowsDeleted, idle.rowsDeleted),
    statementWalBytes: off(d.statementWalBytes, idle.statementWalBytes),
    walBytes: off(d.walBytes, idle.walBytes),
    cpuMs,
  };
}

async function settle(probe: Probe): Promise<void> {
  const idlePerHalf = probe.idle ? (probe.idle.statements / probe.idle.seconds) * 0.5 : 0;
  const deadline = performance.now() + 6_000;
  let prev = (await pgSnapshot(probe.pg)).statements;
  while (performance.now() < deadline) {
    await tick(500);
    const now = (await pgSnapshot(probe.pg)).statements;
    // Each snapshot is one statement of its own; twice the idle rate is quiet enough.
    if (now - prev <= Math.max(4, idlePerHalf * 2)) return;
    prev = now;
  }
}

export async function measured<T>(probe: Probe, fn: () => Promise<T>): Promise<{ value: T; cost: Delta }> {
  const a = await snapshot(probe.cluster, probe.pg);
  const value = await fn();
  await settle(probe);
  const b = await snapshot(probe.cluster, probe.pg);
  return { value, cost: minusIdle(delta(a, b), probe.idle) };
}

export async function measureIdle(probe: Probe, seconds: number): Promise<Delta> {
  const a = await snapshot(probe.cluster, probe.pg);
  await tick(seconds * 1000);
  const b = await snapshot(probe.cluster, probe.pg);
  probe.idle = delta(a, b);
  return probe.idle;
}
