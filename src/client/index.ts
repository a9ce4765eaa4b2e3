/**
 * The typed Tiller client: start turns, read their state, decide pending calls, follow events, and
 * list what waits for a human. A thin layer over the Temporal client and the public wire contract,
 * so everything it does can also be done from the `temporal` CLI or another SDK.
 */
import { randomUUID } from 'node:crypto';
import {
  Client,
  InternalConnectionLikeSymbol,
  QueryNotRegisteredError,
  WithStartWorkflowOperation,
  WorkflowFailedError,
  WorkflowUpdateFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import { connectClient, temporalSettings, type TemporalSettings } from '../config';
import type { TurnEvent } from '../core/events';
import { LIVE_TEXT_POLL_MS, LiveTextTracker, type LiveTextEvent, type ModelActivitySnapshot } from '../core/live-text';
import type {
  Decision,
  PendingApproval,
  Principal,
  RecordedDecision,
  SessionInput,
  SessionState,
  TrustGrant,
  TurnResult,
} from '../core/schemas';
import { eventsPage, summaryOf, type EventsPage, type EventsRequest, type TurnSummary } from '../core/reads';
import type { TurnState } from '../core/state';
import { describeModelActivity } from './live-text';
import {
  decideSignal,
  decideUpdate,
  eventsQuery,
  revokeTrustUpdate,
  sendUpdate,
  sessionDetails,
  sessionStateQuery,
  sessionSummary,
  stateQuery,
  summaryQuery,
  turnDetails,
  turnSummary,
  WORKFLOW_TYPE_SESSION,
  WORKFLOW_TYPE_TURN,
} from '../contract';
import { turnResultOf } from '../core/failures';
import { formatZodError } from '../core/schemas';
import type { ZodType } from 'zod';
import { keylessError } from '../codec/encryption';

/** What {@link TillerClient.startTurn} starts: a turn of `agent` on `input`. */
export interface StartTurnOptions {
  /** The registered agent to run. */
  agent: string;
  /** The user's message. */
  input: string;
  /** The session the turn belongs to, if any. */
  sessionId?: string;
  /** Trust grants the turn starts with: their tools need no approval in it. */
  trust?: TrustGrant[];
  /** Workflow id of the turn; default `turn-<uuid>`. */
  turnId?: string;
  /** Who starts it: that approver may not approve the turn's gated calls (unless a gate allows it). */
  startedBy?: string;
}

/** A session's options on first use (see `send`), and who sends. */
export type SendOptions = Omit<SessionInput, 'carried' | 'owner'> & {
  /**
   * Who sends: the first send makes them the session's owner, and later sends must come from the
   * same name. Without one, the session takes only sends without a principal (Temporal clients).
   */
  principal?: Principal;
};

/** A turn waiting for a human, as visibility lists it ({@link TillerClient.pending}). */
export interface PendingTurn {
  turnId: string;
  agent?: string;
  status?: string;
  pendingTools: string[];
  startTime: Date;
}

/** An update the workflow refused (unknown id, already decided, malformed, busy session …), with its reason. */
export class DecisionRejectedError extends Error {
  override readonly name = 'DecisionRejectedError';
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

export interface TillerClientOptions {
  /**
   * Ask the server to hand a new turn's first workflow task straight back to a worker of this
   * process (eager workflow start: no trip through the task queue). Only a client on the worker's own
   * `NativeConnection` can; the default is on exactly then. Without a worker of this process on the
   * task queue (or a free slot) the server dispatches the turn as usual.
   */
  eagerStart?: boolean;
}

/** Whether the client's connection can take an eager workflow start (a `NativeConnection`, shared with workers). */
export function supportsEagerStart(client: Client): boolean {
  const connection = client.connection as { [InternalConnectionLikeSymbol]?: { supportsEagerStart?: boolean } };
  return connection[InternalConnectionLikeSymbol]?.supportsEagerStart === true;
}

/**
 * The typed client of Tiller's workflows: start turns and sessions, read their state and events, and
 * decide their waiting calls, over a Temporal `Client` on the worker's task queue.
 */
export class TillerClient {
  /** Whether `startTurn` requests an eager start (`TillerClientOptions.eagerStart`). */
  readonly eagerStart: boolean;

  constructor(
    readonly temporal: Client,
    readonly taskQueue: string = temporalSettings().taskQueue,
    opts: TillerClientOptions = {},
  ) {
    this.eagerStart = (opts.eagerStart ?? true) && supportsEagerStart(temporal);
  }

  /** Connects from the Temporal env config (`TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, profiles) and `TILLER_TASK_QUEUE`. */
  static async connect(settings: TemporalSettings = temporalSettings()): Promise<TillerClient> {
    return new TillerClient(await connectClient(settings), settings.taskQueue);
  }

  /** The Temporal workflow handle of a turn (or a session: its workflow id). */
  handle(turnId: string): WorkflowHandle {
    return this.temporal.workflow.getHandle(turnId);
  }

  /** Starts an `agentTurn` workflow and returns its handle; `handle.workflowId` is the turn id. */
  async startTurn(opts: StartTurnOptions): Promise<WorkflowHandle> {
    const turnId = opts.turnId ?? `turn-${randomUUID()}`;
    return this.temporal.workflow.start(WORKFLOW_TYPE_TURN, {
      taskQueue: this.taskQueue,
      workflowId: turnId,
      args: [
        {
          agent: opts.agent,
          input: opts.input,
          ...(opts.sessionId !== undefined && { sessionId: opts.sessionId }),
          ...(opts.startedBy !== undefined && { startedBy: opts.startedBy }),
          ...(opts.trust !== undefined && { trust: opts.trust }),
        },
      ],
      staticSummary: turnSummary(opts.agent, opts.input),
      staticDetails: turnDetails(opts),
      ...(this.eagerStart && { requestEagerStart: true }),
    });
  }

  /** The turn's full state (the `state` query): events, tool calls, pending approvals, usage. */
  state(turnId: string): Promise<TurnState> {
    return this.handle(turnId).query(stateQuery);
  }

  /**
   * The turn in brief (status, pending approvals, usage, counts), without its events and tool call
   * records: what lists and decisions need. From the `state` of a turn on code without the query.
   */
  async summary(turnId: string): Promise<TurnSummary> {
    try {
      return await this.handle(turnId).query(summaryQuery);
    } catch (err) {
      if (!(err instanceof QueryNotRegisteredError)) throw err;
      return summaryOf(await this.state(turnId));
    }
  }

  /**
   * The turn's events after `afterSeq`, a page at a time (`more` says another page follows). From the
   * `state` of a turn on code without the query.
   */
  async events(turnId: string, req: EventsRequest = {}): Promise<EventsPage> {
    try {
      return await this.handle(turnId).query(eventsQuery, req);
    } catch (err) {
      if (!(err instanceof QueryNotRegisteredError)) throw err;
      return eventsPage(await this.state(turnId), req);
    }
  }

  /**
   * Every call waiting for a human in this turn and in its sub-agents (child turns, at any depth),
   * each with the turn id to decide it on: a sub-agent's call is approved on the child, not the parent.
   */
  async pendingTree(turnId: string): Promise<{ turnId: string; approval: PendingApproval }[]> {
    const summary = await this.summary(turnId);
    const own = summary.pendingApprovals.map((approval) => ({ turnId, approval }));
    const nested = await Promise.all(summary.openChildren.map((child) => this.pendingTree(child)));
    return [...own, ...nested.flat()];
  }

  /** Sends the `decide` update and returns the recorded decision; throws `DecisionRejectedError` when refused. */
  async decide(turnId: string, decision: Decision, updateId?: string): Promise<RecordedDecision> {
    try {
      return await this.handle(turnId).executeUpdate(decideUpdate, {
        args: [decision],
        ...(updateId !== undefined && { updateId }),
      });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) {
        throw new DecisionRejectedError(err.cause?.message ?? err.message);
      }
      throw keylessError(err) ?? err;
    }
  }

  /** Approves the waiting call `id` through the `decide` update; resolves to the recorded decision. */
  approve(turnId: string, id: string, opts: { scope?: Decision['scope']; approver?: string; reason?: string } = {}) {
    return this.decide(turnId, { id, approved: true, ...opts });
  }

  /** Denies the waiting call `id` through the `decide` update; the model reads the reason. */
  deny(turnId: string, id: string, opts: { reason?: string; approver?: string } = {}) {
    return this.decide(turnId, { id, approved: false, ...opts });
  }

  /** Requests cancellation: in-flight model and tool activities are cancelled, the turn ends `cancelled`. */
  cancel(workflowId: string): Promise<void> {
    return this.handle(workflowId)
      .cancel()
      .then(() => undefined);
  }

  /** Fire-and-forget decision; a bad one is recorded as DECISION_REJECTED in the turn's events. */
  signalDecision(turnId: string, decision: unknown): Promise<void> {
    return this.handle(turnId).signal(decideSignal, decision as Decision);
  }

  /**
   * The turn's result; for a failed turn, the result carried in the failure (status `failed`). With the
   * agent's `output` schema, `parsed` (the structured answer) is checked against it and typed.
   */
  async result(turnId: string): Promise<TurnResult>;
  async result<T>(turnId: string, output: ZodType<T>): Promise<TurnResult & { parsed?: T }>;
  async result<T>(turnId: string, output?: ZodType<T>): Promise<TurnResult & { parsed?: T }> {
    let result: TurnResult;
    try {
      result = (await this.handle(turnId).result()) as TurnResult;
    } catch (err) {
      const failed = err instanceof WorkflowFailedError ? turnResultOf(err.cause) : undefined;
      if (!failed) throw err;
      result = failed;
    }
    if (!output || result.parsed === undefined) return result as TurnResult & { parsed?: T };
    const checked = output.safeParse(result.parsed);
    if (!checked.success)
      throw new Error(`turn ${turnId}: its parsed answer does not match the schema: ${formatZodError(checked.error)}`);
    return { ...result, parsed: checked.data };
  }

  /**
   * The turn's events as they happen, by polling the `events` query for the ones after the last seen
   * (no history cost). Ends after the turn's final event. Starts after `afterSeq` (default: from the
   * beginning).
   */
  async *watch(turnId: string, opts: { afterSeq?: number; intervalMs?: number; signal?: AbortSignal } = {}) {
    let seq = opts.afterSeq ?? 0;
    let interval = opts.intervalMs ?? 100;
    while (!opts.signal?.aborted) {
      const page = await this.events(turnId, { afterSeq: seq });
      const fresh = page.events;
      for (const event of fresh) {
        seq = event.seq;
        yield event;
      }
      if (page.more) continue;
      if (TERMINAL.has(page.status)) return;
      // Poll quickly while things happen, back off while the turn waits for a human.
      interval = fresh.length ? (opts.intervalMs ?? 100) : Math.min(interval * 1.5, 2_000);
      await new Promise((r) => setTimeout(r, interval));
    }
  }

  /**
   * The running model call's text so far, from its heartbeat (read with DescribeWorkflowExecution: no
   * worker involved, no history events); undefined when no model call is in flight.
   */
  async liveText(turnId: string): Promise<ModelActivitySnapshot | undefined> {
    return (await describeModelActivity(this.temporal, turnId)).model;
  }

  /**
   * Like `watch`, and also the model's text as it streams: `delta` events to append (within about
   * 100 ms of the model producing them) and `discard` when a failed attempt is retried from scratch.
   * The turn's own events keep their order; a call's last `delta` comes before its `MODEL_CALLED`.
   */
  async *watchLive(
    turnId: string,
    opts: { afterSeq?: number; intervalMs?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<TurnEvent | LiveTextEvent> {
    const tracker = new LiveTextTracker();
    const min = opts.intervalMs ?? 100;
    let seq = opts.afterSeq ?? 0;
    let interval = min;
    while (!opts.signal?.aborted) {
      // Describe first, then query: the state is the newer of the two, so a call's tail from its
      // MODEL_CALLED event always follows the text its last heartbeat showed.
      const activity = await describeModelActivity(this.temporal, turnId).catch(() => undefined);
      yield* tracker.observe(activity?.model);
      const before = seq;
      let page: EventsPage;
      do {
        page = await this.events(turnId, { afterSeq: seq });
        for (const event of page.events) {
          seq = event.seq;
          if (event.type === 'MODEL_CALLED') yield* tracker.complete(event.call, event.text);
          yield event;
        }
      } while (page.more);
      if (TERMINAL.has(page.status)) return;
      const fresh = seq > before;
      interval = activity?.model ? LIVE_TEXT_POLL_MS : fresh ? min : Math.min(interval * 1.5, 2_000);
      await new Promise((r) => setTimeout(r, interval));
    }
  }

  /**
   * Turns waiting for a human on this client's task queue (every queue with `allQueues`), from
   * visibility (`TillerStatus`), without querying each workflow.
   */
  async pending(opts: { agent?: string; limit?: number; allQueues?: boolean } = {}): Promise<PendingTurn[]> {
    const query = [
      `WorkflowType = '${WORKFLOW_TYPE_TURN}'`,
      `ExecutionStatus = 'Running'`,
      `TillerStatus = 'awaiting_approval'`,
      // This client's task queue only, unless asked for every queue of the namespace.
      ...(opts.allQueues ? [] : [`TaskQueue = '${this.taskQueue.replace(/'/g, '')}'`]),
      ...(opts.agent ? [`TillerAgent = '${opts.agent.replace(/'/g, '')}'`] : []),
    ].join(' AND ');
    const out: PendingTurn[] = [];
    for await (const wf of this.temporal.workflow.list({ query })) {
      const attrs = wf.typedSearchAttributes;
      const get = (name: string) => attrs.getAll().find((p) => p.key.name === name)?.value;
      out.push({
        turnId: wf.workflowId,
        agent: get('TillerAgent') as string | undefined,
        status: get('TillerStatus') as string | undefined,
        pendingTools: (get('TillerPendingTools') as string[] | undefined) ?? [],
        startTime: wf.startTime,
      });
      if (out.length >= (opts.limit ?? 100)) break;
    }
    return out;
  }

  /**
   * Sends the next input of a conversation: starts the session on first use (update-with-start) and
   * returns the turn id of the turn it runs. Rejected while the session's previous turn still runs,
   * and when `principal` is not the session's owner.
   */
  async send(
    sessionId: string,
    input: string,
    opts: SendOptions = { agent: 'assistant' },
  ): Promise<{ turnId: string }> {
    const { principal, ...options } = opts;
    const session: Omit<SessionInput, 'carried'> = { ...options, ...(principal && { owner: principal }) };
    // The previous turn's result can reach a caller a moment before its session has taken it in:
    // when the session calls a turn "still running" that has in fact closed, try again shortly.
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.temporal.workflow.executeUpdateWithStart(sendUpdate, {
          args: [{ input, ...(principal && { principal }) }],
          startWorkflowOperation: this.sessionStart(sessionId, session),
        });
      } catch (err) {
        if (!(err instanceof WorkflowUpdateFailedError)) throw err;
        const message = err.cause?.message ?? err.message;
        const busy = /still running turn (\S+);/.exec(message)?.[1];
        if (!busy || attempt >= 20 || (await this.isOpen(busy))) throw new DecisionRejectedError(message);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  private sessionStart(sessionId: string, opts: Omit<SessionInput, 'carried'>) {
    return new WithStartWorkflowOperation(WORKFLOW_TYPE_SESSION, {
      workflowId: sessionId,
      taskQueue: this.taskQueue,
      args: [opts],
      workflowIdConflictPolicy: 'USE_EXISTING',
      staticSummary: sessionSummary(sessionId, opts.agent),
      staticDetails: sessionDetails(sessionId, opts.agent),
    });
  }

  private async isOpen(workflowId: string): Promise<boolean> {
    const { status } = await this.handle(workflowId).describe();
    return status.name === 'RUNNING';
  }

  /** The session's state (the session's `state` query): turns, trust, usage, what waits. */
  sessionState(sessionId: string): Promise<SessionState> {
    return this.handle(sessionId).query(sessionStateQuery);
  }

  /** Revokes a session trust grant (from the next turn on); returns the grants left. */
  async revokeTrust(sessionId: string, tool: string, scope?: 'turn' | 'session'): Promise<TrustGrant[]> {
    try {
      return await this.handle(sessionId).executeUpdate(revokeTrustUpdate, {
        args: [{ tool, ...(scope !== undefined && { scope }) }],
      });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) throw new DecisionRejectedError(err.cause?.message ?? err.message);
      throw err;
    }
  }

  /** Closes the client's connection. */
  async close(): Promise<void> {
    await this.temporal.connection.close();
  }
}

export { TERMINAL as TERMINAL_STATUSES };
