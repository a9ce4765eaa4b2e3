/**
 * Driving one scenario's turn(s) through faults: start (or send into a session), wait until its gated
 * call is pending, let the deciders go once released (the fault schedule releases them as a fault
 * begins), and read the result. Every Temporal call is retried while a fault makes it fail; nothing
 * here decides whether the turn was right (./checks.ts does, against the ledger and the scripts).
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { TillerClient } from '../../src/client';
import type { TurnResult } from '../../src/core/schemas';
import { decide, type DeciderTarget, type DecisionRecord } from './deciders';
import type { Scenario } from './scenarios';

/** Who the soak's turns are started by: never one of the deciders, so no approval is a self-approval. */
export const STARTER = 'soak-starter';

export interface TurnRecord {
  scenario: Scenario;
  turnId?: string;
  startedAt: number;
  endedAt?: number;
  result?: TurnResult;
  /** Why no result was read (the turn is then counted as lost). */
  error?: string;
  decisions: DecisionRecord[];
}

export interface DriveContext {
  tiller: TillerClient;
  target: () => DeciderTarget;
  /** Give up on a turn (or a decision) after this long. */
  deadlineMs: number;
  retryMs: number;
  /** True once the soak closes its connection: no retry may start a call on it after that. */
  stopped?: () => boolean;
}

/** `fn` until it succeeds, retrying failures every `retryMs` until `deadline`; the last failure is thrown. */
export async function retrying<T>(ctx: DriveContext, deadline: number, fn: () => Promise<T>): Promise<T> {
  for (;;) {
    if (ctx.stopped?.()) throw new Error('the soak is shutting down');
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, ctx.retryMs));
    }
  }
}

async function start(ctx: DriveContext, sc: Scenario, deadline: number): Promise<string> {
  if (sc.sessionId) return sendIntoSession(ctx, sc, sc.sessionId, deadline);
  const turnId = `soak-${sc.id}`;
  await retrying(ctx, deadline, async () => {
    try {
      await ctx.tiller.startTurn({ turnId, agent: sc.agent, input: sc.input, startedBy: STARTER });
    } catch (err) {
      // An earlier attempt started it and only its answer was lost.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  });
  return turnId;
}

/** A send whose answer a fault lost may still have started the turn: the session's own list says. */
async function sendIntoSession(ctx: DriveContext, sc: Scenario, sessionId: string, deadline: number): Promise<string> {
  return retrying(ctx, deadline, async () => {
    try {
      return (await ctx.tiller.send(sessionId, sc.input, { agent: sc.agent })).turnId;
    } catch (err) {
      const session = await ctx.tiller.sessionState(sessionId).catch(() => undefined);
      const taken = session?.turns.find((t) => t.input === sc.input)?.turnId;
      const current = session?.currentTurn?.turnId;
      if (taken) return taken;
      if (current && !session?.turns.some((t) => t.turnId === current)) return current;
      throw err;
    }
  });
}

/** The id of the call waiting for a human, once the turn shows one. */
async function pendingCall(ctx: DriveContext, turnId: string, deadline: number): Promise<string> {
  return retrying(ctx, deadline, async () => {
    const summary = await ctx.tiller.summary(turnId);
    const id = summary.pendingApprovals[0]?.id;
    if (!id) throw new Error(`turn ${turnId} is ${summary.status} with nothing pending yet`);
    return id;
  });
}

/**
 * The id of the turn's gated call the moment it shows in the turn's state — with a preview still
 * running, often before it waits: what the `instant` scenario decides at once. Polled without a pause
 * worth the name: the point is to be early.
 */
async function shownCall(ctx: DriveContext, turnId: string, tool: string, deadline: number): Promise<string> {
  for (;;) {
    if (ctx.stopped?.()) throw new Error('the soak is shutting down');
    const state = await ctx.tiller.state(turnId).catch(() => undefined);
    const id = state?.pendingApprovals[0]?.id ?? state?.toolCalls.find((c) => c.name === tool)?.id;
    if (id) return id;
    if (Date.now() > deadline) throw new Error(`turn ${turnId}: no ${tool} call showed`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * The turn's result, waited for until `deadline` at most: `result()` long-polls for as long as the
 * turn runs, so a turn that never ends (a decision that never arrived) must not hold the soak.
 */
async function result(ctx: DriveContext, turnId: string, deadline: number): Promise<TurnResult> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`turn ${turnId} had not ended ${ctx.deadlineMs / 1000} s after its last step`)),
      Math.max(0, deadline - Date.now()),
    );
  });
  try {
    return await Promise.race([retrying(ctx, deadline, () => ctx.tiller.result(turnId)), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs one scenario's turn. `pending` resolves once its gated call waits (at once for a turn without
 * one); decisions are sent when `release` resolves.
 */
export function driveTurn(
  ctx: DriveContext,
  sc: Scenario,
  release: Promise<void>,
): { pending: Promise<void>; done: Promise<TurnRecord> } {
  const record: TurnRecord = { scenario: sc, startedAt: Date.now(), decisions: [] };
  let deadline = record.startedAt + ctx.deadlineMs;
  let markPending: () => void = () => undefined;
  const pending = new Promise<void>((resolve) => (markPending = resolve));
  const done = (async () => {
    try {
      const turnId = await start(ctx, sc, deadline);
      record.turnId = turnId;
      if (sc.decisions && sc.kind === 'instant') {
        // Not held for a fault: decided as soon as the call shows, while workflow tasks time out around it.
        markPending();
        const callId = await shownCall(ctx, turnId, sc.expect.tool, deadline);
        const remaining = { deadlineMs: Math.max(0, deadline - Date.now()), retryMs: ctx.retryMs };
        record.decisions = await Promise.all(
          sc.decisions.map((d) => decide(d.client, ctx.target, turnId, callId, d.approved, remaining)),
        );
      } else if (sc.decisions) {
        const callId = await pendingCall(ctx, turnId, deadline);
        markPending();
        await release;
        // Decisions wait for their fault on purpose (up to the whole schedule): the turn's time starts again.
        deadline = Math.max(deadline, Date.now() + ctx.deadlineMs);
        const remaining = { deadlineMs: Math.max(0, deadline - Date.now()), retryMs: ctx.retryMs };
        record.decisions = await Promise.all(
          sc.decisions.map((d) => decide(d.client, ctx.target, turnId, callId, d.approved, remaining)),
        );
        // A race waits for its slower client too: the turn's time starts again after the last decision.
        deadline = Math.max(deadline, Date.now() + ctx.deadlineMs);
      } else markPending();
      record.result = await result(ctx, turnId, deadline);
    } catch (err) {
      record.error = err instanceof Error ? err.message : String(err);
    } finally {
      markPending();
      record.endedAt = Date.now();
    }
    return record;
  })();
  return { pending, done };
}

/** Runs scenarios one after another (a session's turns), each released at once. */
export async function driveSequence(ctx: DriveContext, scenarios: Scenario[], release: Promise<void>) {
  const records: TurnRecord[] = [];
  for (const sc of scenarios) records.push(await driveTurn(ctx, sc, release).done);
  return records;
}
