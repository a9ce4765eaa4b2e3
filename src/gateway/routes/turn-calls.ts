/**
 * The routes' calls to Temporal. Each has a deadline and is tracked, so that closing the gateway
 * waits for them (none outlives it). A read or a decision first checks that a worker polls the
 * turn's task queue: without one it would wait out its deadline, so it gets a 503 at once. A
 * decision describes the turn once: that check's description also tells whether it has ended.
 */
import { WorkflowNotFoundError, type WorkflowExecutionDescription } from '@temporalio/client';
import { hasWorker, noWorkerMessage, turnVisibility } from '../../client/workers';
import type { EventsPage, TurnSummary } from '../../core/reads';
import type { Decision, RecordedDecision } from '../../core/schemas';
import type { TurnState } from '../../core/state';
import { HttpError, toHttpError } from '../errors';
import type { RouteDeps } from './shared';

export interface DecideOptions {
  /** The update's id (a retried request sends the same one, and gets the same answer). */
  updateId?: string;
  /** Sees the turn's summary before anything is sent; throws to refuse. */
  gate?: (summary: TurnSummary) => void;
  /** The workflow status a worker check just gave (e.g. `RUNNING`): the turn is not described again. */
  described?: string;
}

/** How long a task queue counts as served after a worker was seen polling it. */
const WORKER_SEEN_MS = 5_000;

export class TurnCalls {
  private readonly inflight = new Set<Promise<unknown>>();
  /** Task queues seen with a worker lately. */
  private readonly workerSeen = new Map<string, number>();

  constructor(private readonly deps: RouteDeps) {}

  /** Tracks a promise until it settles (see {@link settled}). */
  track<T>(p: Promise<T>): Promise<T> {
    this.inflight.add(p);
    p.then(
      () => this.inflight.delete(p),
      () => this.inflight.delete(p),
    );
    return p;
  }

  /** Resolves once no tracked call is in flight. */
  async settled(): Promise<void> {
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
  }

  withDeadline<T>(ms: number, fn: () => Promise<T>): Promise<T> {
    return this.track(this.deps.tiller.temporal.connection.withDeadline(Date.now() + ms, fn));
  }

  /** The turn's workflow status, e.g. `RUNNING`, `COMPLETED`. */
  describeStatus(turnId: string): Promise<string> {
    return this.withDeadline(this.deps.queryTimeoutMs, () => this.deps.tiller.handle(turnId).describe()).then(
      (d) => d.status.name,
    );
  }

  /** The `state` query, without the worker check. */
  readState(turnId: string): Promise<TurnState> {
    return this.withDeadline(this.deps.queryTimeoutMs, () => this.deps.tiller.state(turnId));
  }

  /** The `state` query, after the worker check. */
  async readStateChecked(turnId: string): Promise<TurnState> {
    await this.requireWorker(turnId);
    return this.readState(turnId);
  }

  /** The `summary` query (no events, no tool calls: what lists and decisions need). */
  readSummary(turnId: string): Promise<TurnSummary> {
    return this.withDeadline(this.deps.queryTimeoutMs, () => this.deps.tiller.summary(turnId));
  }

  /** The events after `afterSeq` (the `events` query). */
  readEvents(turnId: string, afterSeq: number): Promise<EventsPage> {
    return this.withDeadline(this.deps.queryTimeoutMs, () => this.deps.tiller.events(turnId, { afterSeq }));
  }

  /** The events after `afterSeq`, after the worker check. */
  async readEventsChecked(turnId: string, afterSeq: number): Promise<EventsPage> {
    await this.requireWorker(turnId);
    return this.readEvents(turnId, afterSeq);
  }

  /**
   * 503 at once, with what visibility knows, when no worker polls the turn's task queue; else the
   * turn's description (the describe the check made).
   */
  async requireWorker(turnId: string): Promise<WorkflowExecutionDescription> {
    const { tiller, queryTimeoutMs } = this.deps;
    const d = await this.withDeadline(queryTimeoutMs, () => tiller.handle(turnId).describe()).catch((err: unknown) => {
      throw toHttpError(err, `turn ${turnId}`);
    });
    if (Date.now() - (this.workerSeen.get(d.taskQueue) ?? 0) < WORKER_SEEN_MS) return d;
    if (await this.withDeadline(queryTimeoutMs, () => hasWorker(tiller.temporal, d.taskQueue))) {
      this.workerSeen.set(d.taskQueue, Date.now());
      return d;
    }
    throw new HttpError(503, noWorkerMessage(d.taskQueue), { turn: turnVisibility(d) });
  }

  /**
   * Sends a decision (the `decide` update) after the worker check, and wakes the turn's event streams.
   * `gate`, when given, sees the turn's summary (the `summary` query) first and may refuse by throwing:
   * then nothing is sent and no stream is woken. `described`, when the caller has just made the worker
   * check itself (a read before the decision), is the status that check gave: the turn is not described
   * again.
   */
  async decide(turnId: string, decision: Decision, opts: DecideOptions = {}): Promise<RecordedDecision> {
    const { updateId, gate } = opts;
    let status = opts.described;
    let wake = gate === undefined;
    try {
      status ??= (await this.requireWorker(turnId)).status.name;
      if (gate) {
        gate(await this.readSummary(turnId));
        wake = true;
      }
      return await this.withDeadline(this.deps.decideTimeoutMs, () =>
        this.deps.tiller.decide(turnId, decision, updateId),
      );
    } catch (err) {
      return this.closedOrMissing(turnId, err, status);
    } finally {
      if (wake) this.deps.nudges.nudge(turnId);
    }
  }

  /**
   * A decision the workflow refused because the turn has closed reads as 409, not 404. `described` is
   * the workflow status a describe just gave, if any: a closed one is the answer (it stays closed), a
   * running one may have closed since, so the turn is described again.
   */
  async closedOrMissing(turnId: string, err: unknown, described?: string): Promise<never> {
    if (err instanceof WorkflowNotFoundError) {
      const closed = described !== undefined && described !== 'RUNNING';
      const status = closed ? described : await this.describeStatus(turnId).catch(() => undefined);
      if (status && status !== 'RUNNING') {
        throw new HttpError(409, `turn ${turnId} has ended (${status.toLowerCase()}): nothing is pending`);
      }
    }
    throw toHttpError(err, `turn ${turnId}`);
  }
}
