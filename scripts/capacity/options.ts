/** Command-line options of `npm run capacity` (`--help` lists them). */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ROOT } from '../cluster/compose';
import { frontendPortRange } from '../cluster/ports';

const PORTS = frontendPortRange();

const List = z
  .string()
  .transform((s) => s.split(',').map(Number))
  .pipe(z.array(z.number().int().positive()).min(1));

export const CapacityOptions = z.object({
  quick: z.boolean(),
  /** numHistoryShards values: a fresh cluster and database for each. */
  shards: List,
  /** Tiller workers for the throughput levels (the cluster starts the largest count). */
  workers: List,
  /** Tool steps per throughput level, per loop; and steps per turn. */
  toolSteps: z.number().int().positive(),
  stepsPerTurn: z.number().int().positive(),
  /** Turns in flight at once. */
  lanes: z.number().int().positive(),
  /** Gated steps per loop, two per turn. */
  gatedSteps: z.number().int().positive(),
  /** Sessions, and turns per session. */
  sessions: z.number().int().positive(),
  sessionTurns: z.number().int().positive(),
  /** Paused turns held at each point (on the first shard value). */
  paused: List,
  /** Which loop runs first; the pieces then alternate (./rounds.ts). */
  order: z
    .enum(['tiller,bare', 'bare,tiller'])
    .transform((o) => o.split(',') as ['tiller' | 'bare', 'tiller' | 'bare']),
  /** Measured windows per batch, the loops taking turns A B, B A … (./rounds.ts). */
  pieces: z.number().int().positive(),
  /** Seconds of the idle window (what the cluster does with nothing running). */
  idleSeconds: z.number().positive(),
  resultBytes: z.number().int().min(0),
  /** The frontend's port; every other port of the cluster shifts with it. */
  port: z
    .number()
    .int()
    .min(PORTS.min)
    .max(PORTS.max, `the frontend's port is at most ${PORTS.max}: the cluster's PostgreSQL listens 48199 above it`),
  outDir: z.string(),
  /** Only render DIR/CAPACITY.md again from DIR/capacity-results.json. */
  renderOnly: z.boolean(),
  argv: z.array(z.string()),
});
export type CapacityOptions = z.infer<typeof CapacityOptions>;

export const HELP = `npm run capacity [-- options]: what a step costs the production-shape cluster (issue 27)

  --quick              CI's size (~3 min): one shard value, small batches, written to test-artifacts/capacity/
  --shards 4,64        numHistoryShards values, a fresh cluster and database each (quick: 4)
  --workers 1,2,3      Tiller worker processes per throughput level (default 1,2,3)
  --tool-steps N       tool steps per throughput level and loop (default 480; quick 60)
  --steps-per-turn N   tool steps per turn (default 10)
  --lanes N            turns in flight at once (default 24; quick 8)
  --gated N            gated steps per loop, two per turn (default 320; quick 8)
  --sessions N         sessions (default 32; quick 4), --session-turns N turns each (default 5; quick 2);
                       a piece's sessions run at once
  --paused 500,1000    paused turns held at each point (default 500,1000,2000; quick 50,100)
  --pieces N           measured windows per batch, the loops taking turns: A B, B A … (default 2), so a
                       drift in the machine's speed falls on both loops alike
  --order bare,tiller  which loop runs first (default tiller,bare)
  --idle S             seconds of the idle window (default 10; quick 4)
  --port P             the cluster's frontend port, ${PORTS.min}–${PORTS.max} (default 17233: clear of a cluster
                       on 7233; every other port shifts with it)
  --out DIR            where CAPACITY.md and capacity-results.json go (default: the repository root;
                       test-artifacts/capacity/ for --quick)
  --render-only        render DIR/CAPACITY.md again from DIR/capacity-results.json`;

export function parseOptions(argv: string[]): CapacityOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
      shards: { type: 'string' },
      workers: { type: 'string' },
      'tool-steps': { type: 'string' },
      'steps-per-turn': { type: 'string' },
      lanes: { type: 'string' },
      gated: { type: 'string' },
      sessions: { type: 'string' },
      'session-turns': { type: 'string' },
      paused: { type: 'string' },
      idle: { type: 'string' },
      order: { type: 'string' },
      pieces: { type: 'string' },
      'result-bytes': { type: 'string' },
      port: { type: 'string' },
      out: { type: 'string' },
      'render-only': { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const q = values.quick === true;
  const num = (v: string | undefined, full: number, quick: number) =>
    v === undefined ? (q ? quick : full) : Number(v);
  const parsed = CapacityOptions.safeParse({
    quick: q,
    shards: values.shards ?? (q ? '4' : '4,64'),
    workers: values.workers ?? '1,2,3',
    toolSteps: num(values['tool-steps'], 480, 60),
    stepsPerTurn: num(values['steps-per-turn'], 10, 10),
    lanes: num(values.lanes, 24, 8),
    gatedSteps: num(values.gated, 320, 8),
    sessions: num(values.sessions, 32, 4),
    sessionTurns: num(values['session-turns'], 5, 2),
    paused: values.paused ?? (q ? '50,100' : '500,1000,2000'),
    order: values.order ?? 'tiller,bare',
    pieces: num(values.pieces, 2, 2),
    idleSeconds: num(values.idle, 10, 4),
    resultBytes: num(values['result-bytes'], 200, 200),
    port: num(values.port, 17233, 17233),
    outDir: path.resolve(values.out ?? (q ? path.join(ROOT, 'test-artifacts', 'capacity') : ROOT)),
    renderOnly: values['render-only'] === true,
    argv,
  });
  if (parsed.success) return parsed.data;
  throw new OptionsError(parsed.error.issues.map((i) => `--${flagOf(i.path[0])}: ${i.message}`).join('; '));
}

/** A command line `npm run capacity` cannot run: said in one line, without a stack. */
export class OptionsError extends Error {}

/** The flag of an option's field: `toolSteps` is `--tool-steps`, `gatedSteps` `--gated`. */
const SHORT: Record<string, string> = { gatedSteps: 'gated', idleSeconds: 'idle', outDir: 'out' };
const flagOf = (field: PropertyKey | undefined) =>
  SHORT[String(field)] ?? String(field).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
