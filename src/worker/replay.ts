/**
 * Deploy safety: replay live turns' and sessions' histories against workflow code — by default the
 * code of this installation — and report, per workflow, whether it replays or where it diverges.
 * Run it with the code you are about to deploy, against the workflows that will still be open then
 * (e.g. `TillerStatus="awaiting_approval"`), and a non-determinism shows up here instead of in a
 * paused turn after the deploy.
 */
import { workflowOfTurn } from '../core/inline-turns';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { Worker, type WorkerOptions } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { dataConverterFromEnv } from '../codec/encryption';
import { withPayloadGuard } from '../codec/guard';
import { workflowsPath as currentWorkflowsPath } from './plugin';

/** What {@link replayTurns} replays (ids or a visibility query) and against which workflow code. */
export interface ReplayTurnsOptions {
  client: Client;
  /** Turn or session (workflow) ids; the latest run of each is replayed. */
  workflowIds?: string[];
  /** A visibility list filter, e.g. `TillerStatus="awaiting_approval"`; every matching run is replayed. */
  query?: string;
  /** The workflow code to replay against, prebuilt (`bundleWorkflowCode`). */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Or a workflows module to bundle; default Tiller's own workflows (the current code). */
  workflowsPath?: string;
  /** To decode payloads; default from `TILLER_ENCRYPTION_KEYS`, like the worker's. */
  dataConverter?: DataConverter;
  /** At most this many runs from `query` (default 1,000). */
  limit?: number;
  /** Histories fetched at once (default 5). */
  concurrency?: number;
}

/** How one run's replay ended. */
export type ReplayVerdict = 'ok' | 'nondeterminism' | 'failed' | 'not_found';

/** One replayed run: its ids, whether it replayed cleanly, and why not. */
export interface ReplayOutcome {
  workflowId: string;
  runId?: string;
  workflowType?: string;
  ok: boolean;
  /** `nondeterminism`: the code issues other commands than the history recorded; `failed`: replay broke otherwise. */
  verdict: ReplayVerdict;
  /** One line: the core's own message when there is one, e.g. `[TMPRL1100] Nondeterminism error: …`. */
  error?: string;
  /** The full error message from the replay worker. */
  details?: string;
}

interface Target {
  workflowId: string;
  runId?: string;
  workflowType?: string;
}

interface Fetched extends Target {
  history?: temporal.api.history.v1.IHistory;
  outcome?: ReplayOutcome;
}

/** Fetches each history and replays it; resolves to one outcome per workflow run, in order (ids first, then query matches). */
export async function replayTurns(opts: ReplayTurnsOptions): Promise<ReplayOutcome[]> {
  const ids = opts.workflowIds ?? [];
  if (!ids.length && !opts.query) throw new Error('replayTurns: give workflowIds or a query');
  // An inline turn's history is its session's (src/core/inline-turns.ts): the session's run is replayed.
  const targets: Target[] = ids.map((id) => ({ workflowId: workflowOfTurn(id) }));
  if (opts.query) targets.push(...(await listRuns(opts.client, opts.query, opts.limit ?? 1_000)));
  const unique = dedupe(targets);
  if (!unique.length) return [];

  const fetched = await mapConcurrent(unique, opts.concurrency ?? 5, (t) => fetchOne(opts.client, t));
  const replayable = fetched.filter((f) => f.history);
  const outcomes = new Map<Fetched, ReplayOutcome>();
  if (replayable.length) {
    const dataConverter = withPayloadGuard(opts.dataConverter ?? dataConverterFromEnv());
    const code = opts.workflowBundle
      ? { workflowBundle: opts.workflowBundle }
      : { workflowsPath: opts.workflowsPath ?? currentWorkflowsPath };
    const histories = replayable.map((f) => ({ workflowId: f.workflowId, history: f.history! }));
    let i = 0;
    // One history at a time, results in input order (that is how the replay worker works).
    for await (const result of Worker.runReplayHistories(
      { ...code, replayName: 'tiller-replay', ...(dataConverter && { dataConverter }) },
      histories,
    )) {
      const f = replayable[i++]!;
      outcomes.set(f, toOutcome(f, result.error));
    }
  }
  return fetched.map(
    (f) =>
      f.outcome ??
      outcomes.get(f) ?? { ...idOf(f), ok: false, verdict: 'failed', error: 'the replay worker stopped early' },
  );
}

/** Whether a replay error means the code no longer matches the recorded history. */
export function isNondeterminism(err: unknown): boolean {
  if (err instanceof DeterminismViolationError) return true;
  const message = err instanceof Error ? err.message : String(err);
  return /nondetermin|DeterminismViolation/i.test(message);
}

function toOutcome(target: Target, error: Error | undefined): ReplayOutcome {
  if (!error) return { ...idOf(target), ok: true, verdict: 'ok' };
  return {
    ...idOf(target),
    ok: false,
    verdict: isNondeterminism(error) ? 'nondeterminism' : 'failed',
    error: conciseError(error.message),
    details: error.message,
  };
}

/** The SDK's boilerplate before the details of a non-determinism. */
const BOILERPLATE = /^Replay failed with a nondeterminism error\. .*? Details: /s;

/** The innermost `message: "…"` of a core failure dump, else the message itself; on one line. */
export function conciseError(message: string): string {
  const quoted = [...message.matchAll(/message: "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));
  const inner = quoted.find((q) => /TMPRL|nondetermin/i.test(q)) ?? quoted[0];
  return (inner ?? message.replace(BOILERPLATE, '')).replace(/\s+/g, ' ').trim();
}

function idOf(t: Target): Target {
  return {
    workflowId: t.workflowId,
    ...(t.runId && { runId: t.runId }),
    ...(t.workflowType && { workflowType: t.workflowType }),
  };
}

async function listRuns(client: Client, query: string, limit: number): Promise<Target[]> {
  const out: Target[] = [];
  for await (const wf of client.workflow.list({ query })) {
    out.push({ workflowId: wf.workflowId, runId: wf.runId, workflowType: wf.type });
    if (out.length >= limit) break;
  }
  return out;
}

function dedupe(targets: Target[]): Target[] {
  const seen = new Set<string>();
  return targets.filter((t) => {
    const key = `${t.workflowId}\u0000${t.runId ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

async function fetchOne(client: Client, target: Target): Promise<Fetched> {
  try {
    let { runId, workflowType } = target;
    if (!runId) {
      const description = await client.workflow.getHandle(target.workflowId).describe();
      runId = description.runId;
      workflowType = description.type;
    }
    const history = await client.workflow.getHandle(target.workflowId, runId).fetchHistory();
    return { ...target, runId, ...(workflowType && { workflowType }), history };
  } catch (err) {
    const notFound = err instanceof WorkflowNotFoundError;
    return {
      ...target,
      outcome: {
        ...idOf(target),
        ok: false,
        verdict: notFound ? 'not_found' : 'failed',
        error: notFound ? 'no such workflow' : `could not fetch the history: ${(err as Error).message}`,
      },
    };
  }
}

async function mapConcurrent<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  });
  await Promise.all(lanes);
  return out;
}
