/**
 * `tiller replay <workflow...>` and `tiller replay --query '...'`: replays live histories against the
 * workflow code of this installation (or `--bundle`), one line per workflow run; exits 1 when any fails.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import type { TemporalSettings } from '../client/connect';
import { replayTurns, type ReplayOutcome } from '../worker/replay';
import { CliError, EXIT } from './errors';
import { connectTiller } from './temporal';

export interface ReplayCommandOptions {
  query?: string;
  bundle?: string;
  json?: boolean;
}

const out = (line: string) => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

/** Said after `tiller replay --help`'s examples (those are in ./examples.ts with every command's). */
export const REPLAY_EXIT_CODES =
  '\nExit code 0 when every history replays, 1 when any does not (non-determinism, missing workflow, …).';

const LABELS: Record<ReplayOutcome['verdict'], string> = {
  ok: 'ok',
  nondeterminism: 'NONDETERMINISM',
  failed: 'FAILED',
  not_found: 'NOT FOUND',
};

export function formatOutcome(o: ReplayOutcome): string {
  const what = `${o.workflowId}${o.runId ? ` run ${o.runId}` : ''}${o.workflowType ? ` (${o.workflowType})` : ''}`;
  const why = o.error ? `: ${o.error.replace(/\s+/g, ' ')}` : '';
  return `${LABELS[o.verdict].padEnd(14)} ${what}${why}`;
}

/**
 * The replay worker's own warnings (every failing workflow task) would repeat what the report says:
 * SDK and core logs at ERROR unless `TILLER_LOG_LEVEL`.
 */
function installQuietRuntime(): void {
  const level = (process.env.TILLER_LOG_LEVEL?.toUpperCase() ?? 'ERROR') as LogLevel;
  try {
    Runtime.install({
      logger: new DefaultLogger(level),
      telemetryOptions: { logging: { filter: { core: level, other: level } } },
      shutdownSignals: [],
    });
  } catch {
    // A runtime exists already (e.g. when embedded); keep it.
  }
}

export async function replayCommand(
  settings: TemporalSettings,
  workflowIds: string[],
  opts: ReplayCommandOptions,
): Promise<number> {
  if (!workflowIds.length && !opts.query) {
    throw new CliError('give turn or session ids, or --query (see `npx tiller replay --help`)');
  }
  let bundle: string | undefined;
  if (opts.bundle) {
    bundle = path.resolve(opts.bundle);
    if (!fs.existsSync(bundle)) throw new CliError(`no workflow bundle at ${bundle}`);
  }
  installQuietRuntime();
  const tiller = await connectTiller(settings);
  try {
    err(bundle ? `replaying against ${bundle} …` : 'bundling the current workflow code and replaying …');
    const outcomes = await replayTurns({
      client: tiller.temporal,
      workflowIds,
      ...(opts.query !== undefined && { query: opts.query }),
      ...(bundle && { workflowBundle: { codePath: bundle } }),
    });
    if (opts.json) out(JSON.stringify(outcomes, null, 2));
    else for (const o of outcomes) out(formatOutcome(o));
    const failed = outcomes.filter((o) => !o.ok).length;
    if (!outcomes.length) err(`no workflows match ${opts.query}`);
    else err(`replayed ${outcomes.length}: ${outcomes.length - failed} ok, ${failed} failed`);
    return failed ? EXIT.failed : EXIT.ok;
  } finally {
    await tiller.close().catch(() => undefined);
  }
}
