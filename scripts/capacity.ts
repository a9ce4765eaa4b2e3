/**
 * `npm run capacity`: what a step costs the production-shape cluster and how it scales (issue 27).
 * Brings up the secured cluster (scripts/cluster) on port 17233 once per numHistoryShards value, with
 * capacity workers that run Tiller and the bare Temporal loop side by side, and measures tool steps,
 * gated steps, session turns and paused turns: history events and bytes, PostgreSQL statements, rows
 * and WAL bytes (pg_stat_statements), CPU per service, steps/s at 1, 2 and 3 workers, memory and
 * database size per paused turn. Writes capacity-results.json and CAPACITY.md (with the capacity model
 * computed from the figures); `--quick` writes them to test-artifacts/capacity/.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import { bundleWorkflowCode } from '@temporalio/worker';
import { QUIET_BUNDLE_LOGGER, quietRuntime } from './bench/env';
import { cpuShare, cpuTicks, load, machineInfo, uptime } from './bench/machine';
import { CLUSTER_DIR } from './cluster/index';
import { startCapacityModel } from './capacity/model';
import { HELP, OptionsError, parseOptions } from './capacity/options';
import { renderCapacity } from './capacity/render';
import type { CapacityResults } from './capacity/results';
import { runShardPass } from './capacity/run';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureTemporal } = require('./ensure-temporal.js') as {
  ensureTemporal(opts: { needTestServer: boolean; quiet?: boolean }): { cli: string };
};

const log = (line: string) => process.stderr.write(`[capacity] ${line}\n`);

async function bareBundle(): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('./bench/baseline/workflow'),
    logger: QUIET_BUNDLE_LOGGER as never,
  });
  const file = path.join(CLUSTER_DIR, 'capacity', 'bare-bundle.js');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, code);
  return file;
}

async function write(outDir: string, results: CapacityResults): Promise<void> {
  const config = (await prettier.resolveConfig(path.join(outDir, 'README.md'))) ?? {};
  fs.mkdirSync(outDir, { recursive: true });
  const json = await prettier.format(JSON.stringify(results), { ...config, parser: 'json' });
  fs.writeFileSync(path.join(outDir, 'capacity-results.json'), json);
  const md = await prettier.format(renderCapacity(results), { ...config, parser: 'markdown' });
  fs.writeFileSync(path.join(outDir, 'CAPACITY.md'), md);
  log(`wrote ${path.join(path.relative(process.cwd(), outDir) || '.', 'CAPACITY.md')} and capacity-results.json`);
}

async function main(): Promise<number> {
  const opts = parseOptions(process.argv.slice(2));
  if (opts === 'help') {
    console.log(HELP);
    return 0;
  }
  if (opts.renderOnly) {
    const file = path.join(opts.outDir, 'capacity-results.json');
    await write(opts.outDir, JSON.parse(fs.readFileSync(file, 'utf8')) as CapacityResults);
    return 0;
  }
  const t0 = performance.now();
  const ticks = cpuTicks();
  quietRuntime();
  const { cli } = ensureTemporal({ needTestServer: false, quiet: true });
  const machine = {
    ...machineInfo(cli, opts.argv),
    command: ['npm run capacity', ...(opts.argv.length ? ['--', ...opts.argv] : [])].join(' '),
  };
  log(`${machine.cpus} CPUs, ${machine.uptimeAtStart}`);
  const bundle = await bareBundle();
  const model = await startCapacityModel();
  const results: CapacityResults = {
    machine,
    settings: { ...opts, argv: undefined, renderOnly: undefined },
    cluster: '',
    passes: [],
    loadStart: load(),
    loadEnd: [0, 0, 0],
    uptimeAtEnd: '',
    totalSeconds: 0,
  };
  try {
    for (const [i, shards] of opts.shards.entries()) {
      const { pass, description } = await runShardPass(opts, shards, model, bundle, i === 0, log);
      results.cluster = description;
      results.passes.push(pass);
    }
  } finally {
    await model.close();
  }
  results.loadEnd = load();
  results.uptimeAtEnd = uptime();
  results.totalSeconds = Math.round((performance.now() - t0) / 100) / 10;
  const cpu = cpuShare(ticks, cpuTicks());
  if (cpu) results.cpu = cpu;
  await write(opts.outDir, results);
  log(`done in ${results.totalSeconds} s (wall)`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(err instanceof OptionsError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);
