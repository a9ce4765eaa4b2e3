/** `npm run soak` options: quick or full, the target, sizes and where the figures go. */
import path from 'node:path';
import { ROOT } from './deciders';
import type { TargetName } from './targets';

export interface SoakOptions {
  quick: boolean;
  target: TargetName;
  /** Concurrent turns started at the beginning (sessions count for two). */
  turns: number;
  /** Turns started as each fault begins, so some are mid-flight when it hits. */
  burst: number;
  workers: number;
  /** Times the fault schedule runs. */
  rounds: number;
  throughputTurns: number;
  outageMs: number;
  /** The `long-model-outage` fault: the model down this long while workers are killed. */
  longOutageMs: number;
  /** A turn not finished this long after its start counts as lost. */
  turnDeadlineMs: number;
  outDir: string;
  /** The cluster's frontend port (its other ports follow it); the cluster's default when absent. */
  port?: number;
}

const HELP = `npm run soak -- [--quick] [--target dev|cluster] [--turns N] [--burst N] [--workers N] [--rounds N] [--out DIR] [--port N]

  --quick          CI size (~24 turns + bursts, ≤ ~9 min: one fault is a 3-minute model outage); writes to test-artifacts/soak/ unless --out
  --target         dev: a local dev server (SQLite) · cluster: the production shape (default)
  --turns N        concurrent turns started at the beginning (quick 24, full 120)
  --burst N        turns started as each fault begins (quick 3, full 10)
  --workers N      Tiller workers (default 3)
  --rounds N       times the fault schedule runs (quick 1, full 3)
  --out DIR        where RELIABILITY.md and reliability-results.json go (full run: the repository root)
  --port N         the cluster's frontend port, its other ports offset with it (default 7233), so a soak
                   can run beside another cluster (with TILLER_CLUSTER_DIR set to a directory of its own)`;

export function parseOptions(argv: string[]): SoakOptions {
  const args = [...argv];
  const flag = (name: string) => {
    const i = args.indexOf(name);
    if (i < 0) return undefined;
    const [, value] = args.splice(i, 2);
    if (value === undefined) throw new Error(`${name} needs a value`);
    return value;
  };
  if (args.includes('--help')) {
    process.stdout.write(`${HELP}\n`);
    process.exit(0);
  }
  const quick = args.includes('--quick');
  const target = (flag('--target') ?? 'cluster') as TargetName;
  if (target !== 'dev' && target !== 'cluster') throw new Error(`--target dev|cluster, not ${String(target)}`);
  const num = (name: string, fallback: number) => {
    const v = flag(name);
    const n = v === undefined ? fallback : Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name} takes a whole number`);
    return n;
  };
  const out = flag('--out');
  const port = flag('--port');
  // PostgreSQL's port moves with it (55432 + the offset from 7233): at most 17336 keeps it a port.
  if (port !== undefined && !(Number.isInteger(Number(port)) && Number(port) >= 2000 && Number(port) <= 17336))
    throw new Error('--port takes a port between 2000 and 17336 (the other ports are offset with it)');
  const opts: SoakOptions = {
    quick,
    target,
    turns: num('--turns', quick ? 24 : 120),
    burst: num('--burst', quick ? 3 : 10),
    workers: num('--workers', 3),
    rounds: Math.max(1, num('--rounds', quick ? 1 : 3)),
    throughputTurns: quick ? 10 : 40,
    outageMs: 3_000,
    longOutageMs: 180_000,
    // A turn started as the long outage begins waits out its three minutes before it can end.
    turnDeadlineMs: 180_000 + (quick ? 150_000 : 300_000),
    outDir: path.resolve(out ?? (quick ? path.join(ROOT, 'test-artifacts/soak') : ROOT)),
    ...(port !== undefined && { port: Number(port) }),
  };
  const unknown = args.filter((a) => a !== '--quick');
  if (unknown.length) throw new Error(`unknown arguments: ${unknown.join(' ')} (see --help)`);
  return opts;
}
