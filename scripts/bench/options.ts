/** Command-line options of `npm run bench`. Every section can be selected and scaled. */
import path from 'node:path';

export const SECTIONS = [
  'floor',
  'durable',
  'start',
  'throughput',
  'approval',
  'query',
  'history',
  'paused',
  'peer',
  'streams',
] as const;
export type Section = (typeof SECTIONS)[number];
/**
 * A dev server the bench starts: `stock` — `temporal server start-dev` with the CLI's defaults, in memory;
 * `memory` — the same with Tiller's tuning (DEV_SERVER_DYNAMIC_CONFIG), as the tests run it; `sqlite` —
 * tuned and on a SQLite file, as `tiller dev` runs it.
 */
export type Storage = 'stock' | 'memory' | 'sqlite';
export const STORAGES: readonly Storage[] = ['stock', 'memory', 'sqlite'];

export interface BenchOptions {
  quick: boolean;
  only: Section[];
  storages: Storage[];
  /** Storage pass that runs the paused-turns section (it is the most expensive). */
  pausedStorage: Storage;
  /** Tool steps per turn for the per-step latency section. */
  steps: number;
  /** Turns of `steps` steps each for the per-step latency (pooled for percentiles). */
  turns: number;
  /** Tool steps per concurrency level in the throughput section (split across the turns). */
  throughputSteps: number;
  concurrency: number[];
  /** Approvals with the turn cached, and with a worker that caches nothing. */
  approvals: number;
  evictedApprovals: number;
  /** Turns of --steps steps for each of the peer's three variants. */
  peerTurns: number;
  /** Steps of the turn whose `state` is queried; and how many queries per cache mode. */
  querySteps: number;
  queries: number;
  /** Queries with a worker that caches nothing (each replays the whole history, so they are slow). */
  evictedQueries: number;
  /** Turn lengths for the history section. */
  historySteps: number[];
  /** Paused turns per cache mode. */
  paused: number;
  /** maxCachedWorkflows of the "small cache" passes. */
  smallCache: number;
  /** Which cache modes the paused section runs. */
  pausedCaches: ('default' | 'small')[];
  /** Steps of the warm-up turns before each measurement. */
  warmup: number;
  /** Characters of every tool result (what the model sees back). */
  resultBytes: number;
  /** Turns streaming live text, for each of the two ways (heartbeats, workflow-streams). */
  streamRuns: number;
  /** Turns started each way (eager workflow start or not) in the start section. */
  starts: number;
  /** Where BENCHMARKS.md and bench-results.json go. */
  outDir: string;
  /** Re-render BENCHMARKS.md from an existing bench-results.json without measuring. */
  renderOnly: boolean;
  argv: string[];
}

const ROOT = path.resolve(__dirname, '../..');

function list(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function int(name: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} needs a non-negative integer, got ${value}`);
  return n;
}

export const USAGE = `npm run bench -- [options]
  --quick                 a smoke run (~2-3 min): small sizes, the stock and the tuned in-memory servers;
                          writes to test-artifacts/bench/
  --only a,b              sections: ${SECTIONS.join(', ')} (default: all)
  --storage stock,memory,sqlite
                          dev server passes (default all three; --quick: stock,memory): stock = start-dev as
                          the CLI ships it, memory = with Tiller's tuning (the tests' server), sqlite = tuned
                          on a SQLite file (tiller dev's server). stock runs durable only (≤ 2 turns); memory
                          runs every section; sqlite runs durable (≤ 2 turns), throughput (half the steps),
                          approval and query.
  --paused-storage S      which pass runs the paused section (default memory)
  --steps N               tool steps per turn for per-step latency, the peer, and the longest throughput turn
                          (default 200; quick 50)
  --turns N               turns of --steps steps, pooled for percentiles (default 5; quick 1); the Temporal
                          baseline alternates with the first 2
  --peer-turns N          turns of --steps steps for each peer variant (default 1)
  --throughput-steps N    tool steps per concurrency level (default 1000; quick 60; at least 4 per turn)
  --concurrency 1,10,50   concurrent turns for throughput
  --approvals N           approvals with the turn cached (default 100; quick 5)
  --evicted-approvals N   approvals with a cache-less worker (default 20; quick 2)
  --query-steps N         tool steps in the history of the queried turn (default 200; quick 50)
  --queries N             cached queries (default 200; quick 30)
  --evicted-queries N     queries with a cache-less worker (default 10; quick 3)
  --history 20,100,200    turn lengths for the history section (quick 10,20,40)
  --paused N              paused turns per cache mode (default 1000; quick 30; the issue's figure is 10000)
  --paused-caches a,b     cache modes of the paused section: default, small (default: default)
  --small-cache N         maxCachedWorkflows of the paused section's small-cache pass (default 10)
  --warmup N              steps of each warm-up turn (default 30; quick 10)
  --result-bytes N        characters of every tool result (default 200)
  --stream-runs N         turns streaming 40 chunks of text, per streaming variant (default 5; quick 1)
  --starts N              turns started each way (eager, not) for the start section (default 40; quick 10)
  --out DIR               where BENCHMARKS.md + bench-results.json go (default: the repo root for a full run,
                          test-artifacts/bench/ for --quick or --only)
  --render-only           re-render DIR/BENCHMARKS.md from DIR/bench-results.json`;

export function parseOptions(argv: string[]): BenchOptions {
  const quick = argv.includes('--quick');
  const opts: BenchOptions = {
    quick,
    only: [...SECTIONS],
    storages: quick ? ['stock', 'memory'] : [...STORAGES],
    pausedStorage: 'memory',
    steps: quick ? 50 : 200,
    turns: quick ? 1 : 5,
    throughputSteps: quick ? 60 : 1000,
    concurrency: [1, 10, 50],
    approvals: quick ? 5 : 100,
    evictedApprovals: quick ? 2 : 20,
    peerTurns: 1,
    querySteps: quick ? 50 : 200,
    queries: quick ? 30 : 200,
    evictedQueries: quick ? 3 : 10,
    historySteps: quick ? [10, 20, 40] : [20, 100, 200],
    paused: quick ? 30 : 1000,
    smallCache: 10,
    pausedCaches: ['default'],
    warmup: quick ? 10 : 30,
    resultBytes: 200,
    streamRuns: quick ? 1 : 5,
    starts: quick ? 10 : 40,
    outDir: '',
    renderOnly: false,
    argv,
  };
  let partial = quick;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--quick':
        break;
      case '--only': {
        const wanted = list(value());
        const bad = wanted.filter((s) => !(SECTIONS as readonly string[]).includes(s));
        if (bad.length) throw new Error(`unknown section(s) ${bad.join(', ')}; known: ${SECTIONS.join(', ')}`);
        opts.only = wanted as Section[];
        partial = true;
        break;
      }
      case '--storage': {
        const wanted = list(value());
        if (wanted.some((s) => !(STORAGES as readonly string[]).includes(s)))
          throw new Error(`--storage takes ${STORAGES.join(', ')}`);
        // Always in this order: the stock server first, for the side-by-side tables.
        opts.storages = STORAGES.filter((s) => wanted.includes(s));
        break;
      }
      case '--paused-storage': {
        const v = value();
        if (v !== 'memory' && v !== 'sqlite') throw new Error('--paused-storage takes memory or sqlite (tuned)');
        opts.pausedStorage = v;
        break;
      }
      case '--steps':
        opts.steps = int('steps', value());
        break;
      case '--turns':
        opts.turns = int('turns', value());
        break;
      case '--throughput-steps':
        opts.throughputSteps = int('throughput-steps', value());
        break;
      case '--concurrency':
        opts.concurrency = list(value()).map((v) => int('concurrency', v));
        break;
      case '--approvals':
        opts.approvals = int('approvals', value());
        break;
      case '--evicted-approvals':
        opts.evictedApprovals = int('evicted-approvals', value());
        break;
      case '--peer-turns':
        opts.peerTurns = int('peer-turns', value());
        break;
      case '--query-steps':
        opts.querySteps = int('query-steps', value());
        break;
      case '--queries':
        opts.queries = int('queries', value());
        break;
      case '--evicted-queries':
        opts.evictedQueries = int('evicted-queries', value());
        break;
      case '--history':
        opts.historySteps = list(value()).map((v) => int('history', v));
        break;
      case '--paused':
        opts.paused = int('paused', value());
        break;
      case '--paused-caches': {
        const wanted = list(value());
        if (wanted.some((c) => c !== 'default' && c !== 'small'))
          throw new Error('--paused-caches takes default and/or small');
        opts.pausedCaches = wanted as ('default' | 'small')[];
        break;
      }
      case '--small-cache':
        opts.smallCache = int('small-cache', value());
        break;
      case '--warmup':
        opts.warmup = int('warmup', value());
        break;
      case '--result-bytes':
        opts.resultBytes = int('result-bytes', value());
        break;
      case '--stream-runs':
        opts.streamRuns = int('stream-runs', value());
        break;
      case '--starts':
        opts.starts = int('starts', value());
        break;
      case '--out':
        opts.outDir = path.resolve(value());
        break;
      case '--render-only':
        opts.renderOnly = true;
        break;
      case '--help':
      case '-h':
        console.log(USAGE);
        process.exit(0);
        break;
      default:
        throw new Error(`unknown option ${flag}\n${USAGE}`);
    }
  }
  if (!opts.storages.includes(opts.pausedStorage)) {
    opts.pausedStorage = opts.storages.includes('memory')
      ? 'memory'
      : opts.storages.includes('sqlite')
        ? 'sqlite'
        : 'memory';
  }
  // A partial or quick run never overwrites the committed BENCHMARKS.md unless --out says so.
  opts.outDir ||= partial ? path.join(ROOT, 'test-artifacts', 'bench') : ROOT;
  return opts;
}

export { ROOT };
