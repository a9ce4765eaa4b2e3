/**
 * The work the capacity run measures, on Tiller and on the bare Temporal loop side by side: tool steps
 * (turns of S instant tool steps), gated steps (each waits for approval; a client reads the turn's
 * summary — as an inbox does before a decision — and decides with the `decide` update), and session
 * turns (`send` into a session, one tool step each: turns inline in the session, and as child workflows). A piece of a batch runs in `lanes` concurrent
 * lanes inside one measured window; its histories are read after the window. A batch is its pieces
 * together, interleaved with the other loop's (./rounds.ts).
 */
import type { Client } from '@temporalio/client';
import type { TillerClient } from '../../src/client';
import { AGENT, callId, GATED_AGENT } from '../bench/fixture';
import { gaps, pool, type Summary } from '../bench/stats';
import { histories, type HistoryTotals } from './history';
import { measured, type Probe } from './measure';
import type { CapacityModel } from './model';
import { planInput } from './model';
import type { Delta } from './probe';

export type Loop = 'tiller' | 'bare';
/** `session`: sessions of inline turns (`inlineTurns`); `session-child`: sessions whose turns are child workflows. */
export type Kind = 'tool' | 'gated' | 'session' | 'session-child';
/** The kinds, in the order the report lists them. */
export const KINDS: readonly Kind[] = ['tool', 'gated', 'session', 'session-child'];
const isSession = (kind: Kind) => kind === 'session' || kind === 'session-child';

export interface BatchResult {
  loop: Loop;
  kind: Kind;
  workers: number;
  /** Steps (tool, gated) or session turns. */
  units: number;
  turns: number;
  seconds: number;
  perSecond: number;
  /** Time between a turn's consecutive model requests: one step (a gated one includes its decision). */
  stepMs: Summary;
  cost: Delta;
  /** Of `sampledUnits` units' workflows. */
  history: HistoryTotals;
  sampledUnits: number;
  /** Queries a gated batch sent to find each wait (summary / the bare loop's state). */
  queries?: number;
  /** Measured windows the batch ran in, interleaved with the other loop's (absent in older runs: one). */
  pieces?: number;
}

/** One measured window of a batch: its figures, and the step times it saw (./rounds.ts joins pieces). */
export type Piece = Omit<BatchResult, 'stepMs' | 'perSecond' | 'pieces'> & { stepTimes: number[] };

export interface DriveContext {
  probe: Probe;
  tiller: TillerClient;
  model: CapacityModel;
  bareQueue: string;
  /** Workers running now (for the record). */
  workers: number;
  log: (line: string) => void;
}

let seq = 0;
const newKey = (label: string) => `cap-${label}-${Date.now().toString(36)}-${seq++}`;

const client = (ctx: DriveContext): Client => ctx.tiller.temporal;

async function runTurn(ctx: DriveContext, loop: Loop, key: string, steps: number, gated: number): Promise<void> {
  const input = planInput({ key, steps, gated });
  if (loop === 'tiller') {
    await ctx.tiller.startTurn({ agent: gated ? GATED_AGENT : AGENT, input, turnId: key });
    const result = await ctx.tiller.result(key);
    if (result.status !== 'completed') throw new Error(`turn ${key} ended ${result.status}`);
  } else {
    const type = gated ? 'baselineGated' : 'baselineTurn';
    const args = gated ? [input, steps, gated] : [input, steps];
    await client(ctx).workflow.execute(type, { taskQueue: ctx.bareQueue, workflowId: key, args });
  }
}

/**
 * Asks `ready` every `everyMs` until it holds, and says how many times it asked; after `patienceMs`, fails
 * saying `what` (read then, so it can name what it last saw).
 */
export async function polled(
  ready: () => Promise<boolean>,
  what: () => string,
  patienceMs: number,
  everyMs = 20,
): Promise<number> {
  const deadline = performance.now() + patienceMs;
  for (let asked = 1; ; asked++) {
    if (await ready()) return asked;
    if (performance.now() > deadline) throw new Error(`${what()} after ${patienceMs / 1000} s`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Resolves once the bare loop's turn `key` waits at gate `k` (its `state` query), with the queries it took. */
export function untilBareWaits(temporal: Client, key: string, k: number, patienceMs: number): Promise<number> {
  const handle = temporal.workflow.getHandle(key);
  const waiting = async () => (await handle.query<{ waiting: number }>('state')).waiting === k;
  // The model has answered; the workflow task that starts the wait is on its way.
  return polled(waiting, () => `${key}: gate ${k} was not waiting`, patienceMs);
}

/** Finds the wait (polling the turn's summary, or the bare loop's state) and decides it with the update. */
async function decideWhenWaiting(ctx: DriveContext, loop: Loop, key: string, k: number): Promise<number> {
  if (loop === 'bare') {
    const queries = await untilBareWaits(client(ctx), key, k, 120_000);
    await client(ctx)
      .workflow.getHandle(key)
      .executeUpdate('decide', { args: [k] });
    return queries;
  }
  const waiting = async () => (await ctx.tiller.summary(key)).pendingApprovals.some((p) => p.id === callId(k));
  const queries = await polled(waiting, () => `${key}: gate ${k} was not waiting`, 120_000);
  await ctx.tiller.decide(key, { id: callId(k), approved: true });
  return queries;
}

export interface BatchOptions {
  loop: Loop;
  kind: Kind;
  /** Turns (sessions for `session`) in flight at once. */
  lanes: number;
  /** Units in all. */
  units: number;
  /** Units per turn (tool and gated steps) or turns per session. */
  perTurn: number;
  /** Turns (sessions) whose histories are read after the window. */
  sampleTurns: number;
}

export async function runPiece(ctx: DriveContext, o: BatchOptions): Promise<Piece> {
  const turns = Math.max(1, Math.ceil(o.units / o.perTurn));
  const keys = Array.from({ length: turns }, () => newKey(`${o.loop}-${o.kind}`));
  const workflowIds = new Map<string, string[]>();
  let queries = 0;
  const decisions: Promise<void>[] = [];
  const bareGates = new Map<string, number>();
  ctx.model.onGated = (key, k) => {
    // The bare loop's model call does not see its tools' results: its gate number is its call count.
    const gate = o.loop === 'bare' ? (bareGates.get(key) ?? 0) : k;
    bareGates.set(key, gate + 1);
    if (gate >= o.perTurn) return;
    decisions.push(
      decideWhenWaiting(ctx, o.loop, key, gate).then(
        (q) => void (queries += q),
        // A turn whose decision failed would wait for ever: end it, so its lane fails with the reason.
        (err: unknown) =>
          client(ctx)
            .workflow.getHandle(key)
            .terminate(`capacity: deciding failed: ${String(err)}`)
            .then(() => undefined),
      ),
    );
  };
  const t0 = performance.now();
  const { cost } = await measured(ctx.probe, async () => {
    await pool(keys, o.lanes, async (key) => {
      if (isSession(o.kind)) {
        const ids = [key];
        const inlineTurns = o.kind === 'session';
        for (let i = 0; i < o.perTurn; i++) {
          if (o.loop === 'bare') {
            await runTurn(ctx, 'bare', `${key}-${i}`, 1, 0);
            ids.push(`${key}-${i}`);
            continue;
          }
          const input = planInput({ key: `${key}-${i}`, steps: 1 });
          const { turnId } = await ctx.tiller.send(key, input, { agent: AGENT, ...(inlineTurns && { inlineTurns }) });
          const result = await ctx.tiller.result(turnId);
          if (result.status !== 'completed') throw new Error(`session turn ${turnId} ended ${result.status}`);
          // An inline turn's history is its session's.
          if (!inlineTurns) ids.push(turnId);
        }
        // The bare loop has no session: its "session" is the same number of one-step turns.
        workflowIds.set(key, o.loop === 'bare' ? ids.slice(1) : ids);
      } else {
        await runTurn(ctx, o.loop, key, o.kind === 'tool' ? o.perTurn : 0, o.kind === 'gated' ? o.perTurn : 0);
        workflowIds.set(key, [key]);
      }
    });
    await Promise.all(decisions);
  });
  const seconds = (performance.now() - t0) / 1000;
  ctx.model.onGated = () => undefined;
  const stepTimes: number[] = [];
  for (const key of keys) {
    const ids = isSession(o.kind) ? Array.from({ length: o.perTurn }, (_, i) => `${key}-${i}`) : [key];
    for (const id of ids) {
      stepTimes.push(...gaps(ctx.model.requests.get(id) ?? []));
      ctx.model.requests.delete(id);
    }
  }
  const sample = keys.slice(0, o.sampleTurns);
  const history = await histories(
    client(ctx),
    sample.flatMap((k) => workflowIds.get(k) ?? []),
  );
  const units = turns * o.perTurn;
  return {
    loop: o.loop,
    kind: o.kind,
    workers: ctx.workers,
    units,
    turns,
    seconds,
    stepTimes,
    cost,
    history,
    sampledUnits: sample.length * o.perTurn,
    ...(o.kind === 'gated' && { queries }),
  };
}
