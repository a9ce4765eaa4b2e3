/**
 * `npm run bench`: Tiller's benchmarks (issue 5). Starts its own Temporal dev server(s), the scripted
 * model on loopback and in-process workers; measures the floor (no Temporal), durable per-step
 * latency, throughput, approval → resume, `state` query latency, history growth, paused turns at
 * scale and, when it installs, the official Temporal integration as a peer. Writes
 * bench-results.json and BENCHMARKS.md (rendered from it). `--help` lists the options.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import { startEnv, buildBundle, startBenchModel, openaiFor, type BenchEnv, type Bundle } from './bench/env';
import { benchTools, Recorder } from './bench/fixture';
import { cpuShare, cpuTicks, load, machineInfo, uptime } from './bench/machine';
import { parseOptions, ROOT, type BenchOptions, type Section } from './bench/options';
import { renderMarkdown } from './bench/render';
import type { BenchResults, StoragePass, Timed } from './bench/results';
import { runApproval } from './bench/sections/approval';
import { runDurable } from './bench/sections/durable';
import { runFloor } from './bench/sections/floor';
import { runHistory } from './bench/sections/history';
import { runPaused } from './bench/sections/paused';
import { runPeer } from './bench/sections/peer';
import { runQuery } from './bench/sections/query';
import { runStart } from './bench/sections/start';
import { runStreams } from './bench/sections/streams';
import { runThroughput } from './bench/sections/throughput';
import { evaluateTargets } from './bench/targets';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureTemporal } = require('./ensure-temporal.js') as {
  ensureTemporal(opts: { needTestServer: boolean; quiet?: boolean }): { cli: string };
};

const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

async function timed<T>(label: string, fn: () => Promise<T>): Promise<Timed<T>> {
  const loadStart = load();
  log(`${label} … (load ${loadStart.join(' ')})`);
  const ticks = cpuTicks();
  const t0 = performance.now();
  const end = () => {
    const cpu = cpuShare(ticks, cpuTicks());
    return {
      seconds: Math.round((performance.now() - t0) / 100) / 10,
      loadStart,
      loadEnd: load(),
      ...(cpu && { cpu }),
    };
  };
  try {
    const result = await fn();
    const done = end();
    log(
      `${label} done in ${done.seconds} s${done.cpu ? ` (machine busy ${done.cpu.busyPct} %, steal ${done.cpu.stealPct} %)` : ''}`,
    );
    return { result, ...done };
  } catch (err) {
    const done = end();
    const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
    log(`${label} FAILED after ${done.seconds} s: ${error}`);
    return { error, ...done };
  }
}

async function writeOutputs(results: BenchResults, outDir: string): Promise<void> {
  fs.mkdirSync(outDir, { recursive: true });
  const config = (await prettier.resolveConfig(path.join(ROOT, 'BENCHMARKS.md'))) ?? {};
  const json = await prettier.format(JSON.stringify(results), { ...config, parser: 'json' });
  fs.writeFileSync(path.join(outDir, 'bench-results.json'), json);
  // The hand-written section belongs to the committed BENCHMARKS.md only, not to runs written elsewhere.
  const apartPath = path.join(ROOT, 'scripts', 'bench', 'measured-apart.md');
  const apart =
    path.resolve(outDir) === ROOT && fs.existsSync(apartPath) ? fs.readFileSync(apartPath, 'utf8') : undefined;
  const md = await prettier.format(renderMarkdown(results, apart), { ...config, parser: 'markdown' });
  fs.writeFileSync(path.join(outDir, 'BENCHMARKS.md'), md);
  log(
    `wrote ${path.relative(process.cwd(), path.join(outDir, 'BENCHMARKS.md')) || 'BENCHMARKS.md'} and bench-results.json`,
  );
}

function settingsOf(o: BenchOptions): BenchResults['settings'] {
  return {
    quick: o.quick,
    sections: o.only,
    storages: o.storages,
    steps: o.steps,
    turns: o.turns,
    throughputSteps: o.throughputSteps,
    concurrency: o.concurrency,
    approvals: o.approvals,
    evictedApprovals: o.evictedApprovals,
    peerTurns: o.peerTurns,
    querySteps: o.querySteps,
    queries: o.queries,
    evictedQueries: o.evictedQueries,
    historySteps: o.historySteps,
    paused: o.paused,
    smallCache: o.smallCache,
    warmup: o.warmup,
    resultBytes: o.resultBytes,
    streamRuns: o.streamRuns,
    starts: o.starts,
  };
}

async function main(): Promise<number> {
  const opts = parseOptions(process.argv.slice(2));
  if (opts.renderOnly) {
    const results = JSON.parse(fs.readFileSync(path.join(opts.outDir, 'bench-results.json'), 'utf8')) as BenchResults;
    await writeOutputs(results, opts.outDir);
    return 0;
  }
  const want = (s: Section) => opts.only.includes(s);
  const warmGates = Math.max(1, Math.round(opts.warmup / 10));
  const t0 = performance.now();
  const ticks0 = cpuTicks();
  const { cli } = ensureTemporal({ needTestServer: false });
  const results: BenchResults = {
    machine: machineInfo(cli, opts.argv),
    settings: settingsOf(opts),
    passes: [],
    uptimeAtEnd: '',
    totalSeconds: 0,
  };
  log(`${results.machine.cpus} CPUs, ${results.machine.uptimeAtStart}`);
  const rec = new Recorder();
  const model = await startBenchModel(rec);
  try {
    if (want('floor')) {
      results.floor = await timed('floor', () =>
        runFloor({
          openai: openaiFor(model),
          tools: benchTools(opts.resultBytes),
          rec,
          steps: opts.steps,
          turns: opts.turns,
        }),
      );
    }
    const temporalSections: Section[] = [
      'durable',
      'start',
      'throughput',
      'approval',
      'query',
      'history',
      'paused',
      'peer',
      'streams',
    ];
    if (temporalSections.some(want)) {
      let bundle: Bundle | undefined;
      // The first tuned pass runs the sections measured once (history, start, peer, streams).
      const main = opts.storages.find((s) => s !== 'stock');
      for (const storage of opts.storages) {
        const first = storage === main;
        // The stock server is there for the side-by-side per-step table: durable only.
        const here: Section[] = storage === 'stock' ? ['durable'] : ['durable', 'throughput', 'approval', 'query'];
        if (first) here.push('history', 'start', 'peer', 'streams');
        if (storage === opts.pausedStorage) here.push('paused');
        if (!here.some(want)) continue;
        bundle ??= await buildBundle();
        const b = bundle;
        let env: BenchEnv;
        try {
          env = await startEnv({ storage, cli, model, rec, bundle: b, resultBytes: opts.resultBytes });
        } catch (err) {
          log(`could not start the ${storage} dev server: ${String(err)}`);
          results.passes.push({
            storage,
            durable: { error: String(err), seconds: 0, loadStart: load(), loadEnd: load() },
          });
          continue;
        }
        log(`${storage} dev server at ${env.server.address}`);
        const pass: StoragePass = { storage };
        results.passes.push(pass);
        const tag = (s: string) => `${s} [${storage}]`;
        // Passes other than the first tuned one repeat the storage-sensitive sections at smaller sizes, to
        // keep the run short.
        const turns = first ? opts.turns : Math.min(opts.turns, 2);
        const throughputSteps = first ? opts.throughputSteps : Math.ceil(opts.throughputSteps / 2);
        try {
          if (want('durable') && here.includes('durable'))
            pass.durable = await timed(tag('durable'), () =>
              runDurable(env, {
                steps: opts.steps,
                turns,
                baselineTurns: Math.min(turns, 2),
                warmSteps: opts.warmup,
              }),
            );
          if (want('start') && first)
            results.start = await timed(tag('start'), () => runStart(env, { turns: opts.starts, warm: 3 }));
          if (want('throughput') && here.includes('throughput'))
            pass.throughput = await timed(tag('throughput'), () =>
              runThroughput(env, {
                concurrency: opts.concurrency,
                totalSteps: throughputSteps,
                maxStepsPerTurn: opts.steps,
              }),
            );
          if (want('approval') && here.includes('approval'))
            pass.approval = await timed(tag('approval'), async () => [
              await runApproval(env, { approvals: opts.approvals, cache: 'cached', warmGates }),
              await runApproval(env, { approvals: opts.evictedApprovals, cache: 'evicted', warmGates }),
            ]);
          if (want('query') && here.includes('query'))
            pass.query = await timed(tag('query'), () =>
              runQuery(env, { steps: opts.querySteps, queries: opts.queries, evictedQueries: opts.evictedQueries }),
            );
          if (want('history') && first)
            results.history = await timed(tag('history'), () => runHistory(env, { steps: opts.historySteps }));
          if (want('paused') && storage === opts.pausedStorage)
            pass.paused = await timed(tag('paused'), () =>
              runPaused(env, { turns: opts.paused, smallCache: opts.smallCache, caches: opts.pausedCaches }),
            );
          if (want('streams') && first)
            results.streams = await timed(tag('streams'), () =>
              runStreams(env, { runs: opts.streamRuns, chunks: 40, chunkIntervalMs: 25 }),
            );
          if (want('peer') && first)
            results.peer = await timed(tag('peer'), () => runPeer(env, { steps: opts.steps, turns: opts.peerTurns }));
        } finally {
          await env.close();
        }
      }
    }
  } finally {
    await model.close();
  }
  results.uptimeAtEnd = uptime();
  results.totalSeconds = Math.round((performance.now() - t0) / 100) / 10;
  const cpu = cpuShare(ticks0, cpuTicks());
  if (cpu) results.cpu = cpu;
  await writeOutputs(results, opts.outDir);
  for (const t of evaluateTargets(results)) log(`${t.status.padEnd(12)} ${t.target}: ${t.measured}`);
  const failed = [
    results.floor,
    results.history,
    results.peer,
    results.start,
    results.streams,
    ...results.passes.flatMap((p) => [p.durable, p.throughput, p.approval, p.query, p.paused]),
  ].filter((t) => t?.error !== undefined).length;
  if (failed) log(`${failed} section(s) failed; see BENCHMARKS.md`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
