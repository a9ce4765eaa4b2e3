/**
 * `npm run soak`: the chaos soak (issue 14). Starts the ledger, the scripted model with network
 * faults and the target (the production cluster, or `--target dev`), runs concurrent turns through a
 * fault schedule, judges them against independent records, and writes RELIABILITY.md and
 * reliability-results.json. Exits 1 when anything was lost, duplicated or mismatched.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as prettier from 'prettier';
import { TillerClient } from '../src/client';
import { temporalSettings } from '../src/client/connect';
import { machineInfo } from './bench/machine';
import { auditSoak } from './soak/audit';
import { judge } from './soak/checks';
import { APPROVER, ROOT, type DeciderTarget } from './soak/deciders';
import { startLedger } from './soak/ledger';
import { startSoakModel } from './soak/model';
import { parseOptions } from './soak/options';
import { keptSections, renderMarkdown } from './soak/render';
import { buildResults, failed } from './soak/results';
import { runSoak } from './soak/run';
import { openTarget } from './soak/targets';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureTemporal } = require('./ensure-temporal.js') as {
  ensureTemporal(opts: { needTestServer: boolean; quiet?: boolean }): { cli: string };
};

const log = (line: string) => process.stderr.write(`[soak] ${line}\n`);

/** One workflow bundle for every worker start: a restarted worker polls in seconds. */
function buildBundle(dir: string): string {
  const out = path.join(dir, 'workflow-bundle.js');
  execFileSync(process.execPath, ['--require', 'tsx/cjs', path.join(ROOT, 'scripts/build-workflow-bundle.ts'), out], {
    cwd: ROOT,
    // Webpack's report only when the build fails (execFileSync's error carries it).
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return out;
}

async function write(outDir: string, name: string, text: string, parser: 'json' | 'markdown'): Promise<void> {
  const config = (await prettier.resolveConfig(path.join(ROOT, 'README.md'))) ?? {};
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, name), await prettier.format(text, { ...config, parser }));
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const opts = parseOptions(argv);
  const { cli } = ensureTemporal({ needTestServer: false, quiet: true });
  const machine = {
    ...machineInfo(cli, argv),
    command: ['npm run soak', ...(argv.length ? ['--', ...argv] : [])].join(' '),
  };
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-soak-'));
  log(`building the workflow bundle`);
  const bundle = buildBundle(work);
  const ledger = await startLedger();
  const model = await startSoakModel({ delayEvery: 7, delayMs: 400, rateLimitEvery: 11, resetEvery: 13 });
  const runId = `r${Date.now().toString(36)}`;
  const cluster = await openTarget(opts.target, cli, {
    workers: opts.workers,
    ...(opts.port !== undefined && { port: opts.port }),
    gateway: true,
    workerCommand: {
      command: process.execPath,
      args: ['--require', 'tsx/cjs', path.join(ROOT, 'scripts/soak/worker.ts')],
      readyPattern: /^ready$/m,
    },
    env: { OPENAI_BASE_URL: model.url, SOAK_LEDGER_URL: ledger.url, TILLER_WORKFLOW_BUNDLE: bundle },
    log,
  });
  // The soak's own client starts and reads turns as the gateway would (on the secured cluster: its profile).
  const tiller = await TillerClient.connect(temporalSettings(cluster.clientEnv('gateway')));
  const secured = cluster.secured
    ? {
        env: {
          TEMPORAL_CONFIG_FILE: cluster.clientEnv('approver').TEMPORAL_CONFIG_FILE!,
          TEMPORAL_PROFILE: 'approver',
        },
        tokens: Object.fromEntries(
          await Promise.all(
            Object.values(APPROVER).map(
              async (name) =>
                [name, await cluster.token({ role: 'approver', subject: name, ttlSeconds: 86_400 })] as const,
            ),
          ),
        ),
      }
    : undefined;
  let stopped = false;
  try {
    const target = (): DeciderTarget => ({
      address: cluster.address,
      namespace: cluster.namespace,
      taskQueue: cluster.taskQueue,
      temporalCli: cluster.temporalCli,
      ...(cluster.gateway && { gateway: cluster.gateway }),
      ...(secured && { secured }),
    });
    const ctx = { tiller, target, deadlineMs: opts.turnDeadlineMs, retryMs: 500, stopped: () => stopped };
    const run = await runSoak(opts, cluster, model, ctx, runId, log);
    const all = [...run.throughput.flatMap((p) => p.records), ...run.records, ...run.canaries];
    const verdict = judge(all, ledger.effects, ledger.attempts.length);
    log('auditing every turn (tiller audit) and reconciling it with the decisions sent');
    const audit = await auditSoak(tiller.temporal, all, opts.outDir, secured !== undefined);
    const results = buildResults(machine, opts, run, verdict, cluster.description, audit);
    await write(opts.outDir, 'reliability-results.json', JSON.stringify(results), 'json');
    const previous = path.join(opts.outDir, 'RELIABILITY.md');
    const kept = keptSections(fs.existsSync(previous) ? fs.readFileSync(previous, 'utf8') : undefined);
    await write(opts.outDir, 'RELIABILITY.md', renderMarkdown(results) + kept, 'markdown');
    log(`wrote ${path.relative(process.cwd(), opts.outDir) || '.'}/RELIABILITY.md and reliability-results.json`);
    const z = results.zeros;
    log(
      `turns lost ${z.turnsLost}, tool effects duplicated ${z.effectsDuplicated} (missing ${verdict.effectsMissing}), decisions lost ${z.decisionsLost}, usage mismatches ${z.usageMismatches}`,
    );
    log(
      `audit: ${audit.auditDecided} decisions listed, ${audit.soakApplied} taken; ${audit.auditExpired} expiries listed, ${audit.soakExpired} let expire; ${audit.refusedInHistory} refused attempts in history of ${audit.soakRefused} refused; chain ${audit.verified ? 'verifies' : 'BROKEN'}, a changed row ${audit.tamperCaught ? 'caught' : 'NOT caught'}`,
    );
    for (const p of [...verdict.problems, ...audit.problems]) log(`problem: ${p}`);
    return failed(results) ? 1 : 0;
  } finally {
    // Turns given up on may still have a long poll open; closing the channel under it throws from inside
    // grpc-js. The process exits right after this (main's caller), which ends the connection.
    stopped = true;
    await cluster.down();
    await model.close();
    await ledger.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);
