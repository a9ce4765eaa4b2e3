/** The short-lived commands: run, state, approve/deny, pending, setup. Each returns its exit code. */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { TillerClient } from '../client';
import type { TemporalSettings } from '../client/connect';
import { tillerCommand } from '../core/hints';
import type { Decision } from '../core/schemas';
import type { TurnState } from '../core/state';
import { ensureSearchAttributes } from '../worker/search-attributes';
import { TillerAgent } from '../core/contract';
import { CliError, EXIT } from './errors';
import { followTurn } from './follow';
import { formatDecision, formatPending, formatState, stateFromResult } from './format';
import {
  connectOperator,
  connectTiller,
  describeTurn,
  hasWorker,
  isRunning,
  noWorkerError,
  requireWorker,
} from './temporal';

const out = (line = '') => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

/** Runs `fn` with a client connected for it (closed after), or with a given one (its owner closes it). */
async function withTiller<T>(
  target: TemporalSettings | TillerClient,
  fn: (tiller: TillerClient) => Promise<T>,
): Promise<T> {
  if (target instanceof TillerClient) return fn(target);
  const tiller = await connectTiller(target);
  try {
    return await fn(tiller);
  } finally {
    await tiller.close().catch(() => undefined);
  }
}

export interface RunOptions {
  turnId?: string;
  json?: boolean;
  as: string;
  /** Without a terminal, keep following after a pause (tiller dev --demo). */
  keepFollowing?: boolean;
  signal?: AbortSignal;
  /** A client to use (not close) instead of connecting: `tiller dev`'s, on its worker's connection (eager start). */
  tiller?: TillerClient;
}

export function runCommand(
  settings: TemporalSettings,
  agent: string,
  input: string,
  opts: RunOptions,
): Promise<number> {
  return withTiller(opts.tiller ?? settings, async (tiller) => {
    let turnId: string;
    try {
      turnId = (await tiller.startTurn({ agent, input, ...(opts.turnId && { turnId: opts.turnId }) })).workflowId;
    } catch (e) {
      if (e instanceof WorkflowExecutionAlreadyStartedError) {
        throw new CliError(
          `a turn with id ${opts.turnId} already exists: see it with \`${tillerCommand(['state', String(opts.turnId)], settings)}\``,
        );
      }
      throw e;
    }
    const note = opts.json ? err : out;
    note(`turn ${turnId} started · agent ${agent} · task queue ${settings.taskQueue}`);
    try {
      await requireWorker(tiller, settings.taskQueue, 3_000);
    } catch (e) {
      if (e instanceof CliError) {
        throw new CliError(
          `${e.message}\nturn ${turnId} runs once one polls; see it with \`${tillerCommand(['state', turnId], settings)}\``,
          e.exitCode,
        );
      }
      throw e;
    }
    return followTurn({
      tiller,
      settings,
      turnId,
      json: !!opts.json,
      interactive: !!process.stdin.isTTY && !!process.stdout.isTTY,
      keepFollowing: !!opts.keepFollowing,
      approver: opts.as,
      ...(opts.signal && { signal: opts.signal }),
    });
  });
}

/** The turn's state: by query when a worker can answer, else (for an ended turn) from its result. */
async function readState(tiller: TillerClient, turnId: string): Promise<{ state: TurnState; fromResult: boolean }> {
  const description = await describeTurn(tiller, turnId);
  const taskQueue = description.taskQueue;
  if (!(await hasWorker(tiller, taskQueue))) {
    if (isRunning(description)) throw noWorkerError(description);
    const agent = description.typedSearchAttributes.get(TillerAgent) ?? '?';
    return { state: stateFromResult(turnId, agent, await tiller.result(turnId)), fromResult: true };
  }
  return { state: await tiller.state(turnId), fromResult: false };
}

export function stateCommand(settings: TemporalSettings, turnId: string, opts: { json?: boolean }): Promise<number> {
  return withTiller(settings, async (tiller) => {
    const { state, fromResult } = await readState(tiller, turnId);
    if (fromResult)
      err("(no worker polls this turn's task queue: showing the ended turn's result instead of its live state)");
    if (opts.json) out(JSON.stringify(state, null, 2));
    else for (const line of formatState(state)) out(line);
    return EXIT.ok;
  });
}

export function decideCommand(settings: TemporalSettings, turnId: string, decision: Decision): Promise<number> {
  return withTiller(settings, async (tiller) => {
    const description = await describeTurn(tiller, turnId);
    if (!isRunning(description)) {
      throw new CliError(`rejected: turn ${turnId} has already ended (${description.status.name})`, EXIT.rejected);
    }
    if (!(await hasWorker(tiller, description.taskQueue))) throw noWorkerError(description);
    out(formatDecision(await tiller.decide(turnId, decision)));
    return EXIT.ok;
  });
}

export function pendingCommand(settings: TemporalSettings, opts: { agent?: string; json?: boolean }): Promise<number> {
  return withTiller(settings, async (tiller) => {
    let turns;
    try {
      turns = await tiller.pending(opts.agent ? { agent: opts.agent } : {});
    } catch (e) {
      if (/TillerStatus|TillerAgent|search attribute/i.test((e as Error).message)) {
        throw new CliError(
          `the Tiller search attributes are missing on namespace ${settings.namespace}: run \`${tillerCommand(['setup'], settings)}\` (${(e as Error).message})`,
        );
      }
      throw e;
    }
    if (opts.json) out(JSON.stringify(turns, null, 2));
    else for (const line of formatPending(turns)) out(line);
    return EXIT.ok;
  });
}

export async function setupCommand(settings: TemporalSettings): Promise<number> {
  const connection = await connectOperator(settings);
  try {
    const outcome = await ensureSearchAttributes(connection, settings.namespace);
    if (outcome.type === 'unavailable') {
      err(`could not register ${outcome.missing.join(', ')} on namespace ${settings.namespace}: ${outcome.reason}`);
      return EXIT.failed;
    }
    out(
      outcome.added.length
        ? `registered ${outcome.added.join(', ')} on namespace ${settings.namespace}`
        : `search attributes already registered on namespace ${settings.namespace}`,
    );
    return EXIT.ok;
  } finally {
    await connection.close();
  }
}

export function cancelCommand(settings: TemporalSettings, id: string): Promise<number> {
  return withTiller(settings, async (tiller) => {
    const description = await describeTurn(tiller, id);
    if (!isRunning(description)) {
      throw new CliError(`rejected: ${id} has already ended (${description.status.name})`, EXIT.rejected);
    }
    await tiller.cancel(id);
    out(`cancellation requested for ${id}; it ends \`cancelled\` once its worker has stopped what runs`);
    return EXIT.ok;
  });
}
