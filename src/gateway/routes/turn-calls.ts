/**
 * The routes' calls to Temporal. Each has a deadline and is tracked, so that closing the gateway
 * waits for them (none outlives it). A read or a decision first checks that a worker polls the
 * turn's task queue: without one it would wait out its deadline, so it gets a 503 at once.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { hasWorker, noWorkerMessage, turnVisibility } from '../../client/workers';
import type { EventsPage, TurnSummary } from '../../core/reads';
import type { Decision, RecordedDecision } from '../../core/schemas';
import type { TurnState } from '../../core/state';
import { HttpError, toHttpError } from '../errors';
import type { RouteDeps } from './shared';

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

  /** The `summary` query, after the worker check. */
  async readSummaryChecked(turnId: string): Promise<TurnSummary> {
    await this.requireWorker(turnId);
    return this.readSummary(turnId);
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

  /** 503 at once, with what visibility knows, when no worker polls the turn's task queue. */
  async requireWorker(turnId: string): Promise<void> {
    const { tiller, queryTimeoutMs } = this.deps;
    const d = await this.withDeadline(queryTimeoutMs, () => tiller.handle(turnId).describe()).catch((err: unknown) => {
      throw toHttpError(err, `turn ${turnId}`);
    });
    if (Date.now() - (this.workerSeen.get(d.taskQueue) ?? 0) < WORKER_SEEN_MS) return;
    if (await this.withDeadline(queryTimeoutMs, () => hasWorker(tiller.temporal, d.taskQueue))) {
      this.workerSeen.set(d.taskQueue, Date.now());
      return;
    }
    throw new HttpError(503, noWorkerMessage(d.taskQueue), { turn: turnVisibility(d) });
  }

  /** Sends a decision (the `decide` update) and wakes the turn's event streams. */
  async decide(turnId: string, decision: Decision, updateId?: string): Promise<RecordedDecision> {
    try {
      await this.requireWorker(turnId);
      return await this.withDeadline(this.deps.decideTimeoutMs, () =>
        this.deps.tiller.decide(turnId, decision, updateId),
      );
    } catch (err) {
      return this.closedOrMissing(turnId, err);
    } finally {
      this.deps.nudges.nudge(turnId);
    }
  }

  /** A decision the workflow refused because the turn has closed reads as 409, not 404. */
  async closedOrMissing(turnId: string, err: unknown): Promise<never> {
    if (err instanceof WorkflowNotFoundError) {
      const status = await this.describeStatus(turnId).catch(() => undefined);
      if (status && status !== 'RUNNING') {
        throw new HttpError(409, `turn ${turnId} has ended (${status.toLowerCase()}): nothing is pending`);
      }
    }
    throw toHttpError(err, `turn ${turnId}`);
  }
}
