/**
 * The typed Tiller client: start turns, read their state, decide pending calls, follow events, and
 * list what waits for a human. A thin layer over the Temporal client and the public wire contract,
 * so everything it does can also be done from the `temporal` CLI or another SDK.
 *
 * `TillerClient` is the one entry; each of its jobs lives in a module of this folder: starting turns
 * and reading their results (turns.ts), reading and listing turns (reads.ts), deciding their calls
 * (decisions.ts), sessions (sessions.ts), and following a turn as it runs (follow.ts).
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import { connectClient, temporalSettings, type TemporalSettings } from './connect';
import type { TurnEvent } from '../core/state/events';
import type { LiveTextEvent, ModelActivitySnapshot } from '../core/live-text';
import type {
  Decision,
  PendingApproval,
  RecordedDecision,
  SessionState,
  TrustGrant,
  TurnResult,
} from '../core/schemas';
import type { EventsPage, EventsRequest, TurnSummary } from '../core/reads';
import type { TurnState } from '../core/state';
import { cancelTurnSignal, decideSignal, sessionStateQuery } from '../core/contract';
import { namedFor, sessionOfTurn, workflowOfTurn } from '../core/inline-turns';
import type { ZodType } from 'zod';
import { decide } from './decisions';
import { watchEvents, watchLiveEvents } from './follow';
import { describeModelActivity } from './live-text';
import { listPending, pendingTree, readEvents, readState, readSummary, type PendingTurn } from './reads';
import { revokeTrust, send, type SendOptions } from './sessions';
import { startTurn, supportsEagerStart, turnResult, type StartTurnOptions, type TillerClientOptions } from './turns';

export { DecisionRejectedError } from './decisions';
export { TERMINAL as TERMINAL_STATUSES } from './follow';
export type { PendingTurn } from './reads';
export type { SendOptions } from './sessions';
export { supportsEagerStart, type StartTurnOptions, type TillerClientOptions } from './turns';

/**
 * The typed client of Tiller's workflows: start turns and sessions, read their state and events, and
 * decide their waiting calls, over a Temporal `Client` on the worker's task queue.
 */
export class TillerClient {
  /** Whether `startTurn` requests an eager start (`TillerClientOptions.eagerStart`). */
  readonly eagerStart: boolean;
  /** Whether `startTurn` and `send` set search attributes; unset until the namespace was asked (`TillerClientOptions.searchAttributes`). */
  startSearchAttributes: boolean | undefined;

  constructor(
    readonly temporal: Client,
    readonly taskQueue: string = temporalSettings().taskQueue,
    opts: TillerClientOptions = {},
  ) {
    this.eagerStart = (opts.eagerStart ?? true) && supportsEagerStart(temporal);
    this.startSearchAttributes = opts.searchAttributes;
  }

  /** Connects from the Temporal env config (`TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, profiles) and `TILLER_TASK_QUEUE`. */
  static async connect(settings: TemporalSettings = temporalSettings()): Promise<TillerClient> {
    return new TillerClient(await connectClient(settings), settings.taskQueue);
  }

  /** The Temporal workflow handle of a turn (or a session: its workflow id); an inline turn's is its session's. */
  handle(turnId: string): WorkflowHandle {
    return this.temporal.workflow.getHandle(workflowOfTurn(turnId));
  }

  /** Starts an `agentTurn` workflow and returns its handle; `handle.workflowId` is the turn id. */
  async startTurn(opts: StartTurnOptions): Promise<WorkflowHandle> {
    return startTurn(this, opts);
  }

  /** The turn's full state (the `state` query): events, tool calls, pending approvals, usage. */
  state(turnId: string): Promise<TurnState> {
    return readState(this, turnId);
  }

  /**
   * The turn in brief (status, pending approvals, usage, counts), without its events and tool call
   * records: what lists and decisions need. From the `state` of a turn on code without the query.
   */
  async summary(turnId: string): Promise<TurnSummary> {
    return readSummary(this, turnId);
  }

  /**
   * The turn's events after `afterSeq`, a page at a time (`more` says another page follows). From the
   * `state` of a turn on code without the query.
   */
  async events(turnId: string, req: EventsRequest = {}): Promise<EventsPage> {
    return readEvents(this, turnId, req);
  }

  /**
   * Every call waiting for a human in this turn and in its sub-agents (child turns, at any depth),
   * each with the turn id to decide it on: a sub-agent's call is approved on the child, not the parent.
   */
  async pendingTree(turnId: string): Promise<{ turnId: string; approval: PendingApproval }[]> {
    return pendingTree(this, turnId);
  }

  /** Sends the `decide` update and returns the recorded decision; throws `DecisionRejectedError` when refused. */
  async decide(turnId: string, decision: Decision, updateId?: string): Promise<RecordedDecision> {
    return decide(this, turnId, decision, updateId);
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
    // An inline turn is cancelled by its session (`cancelTurn`): cancelling the workflow would end the session.
    if (sessionOfTurn(workflowId) !== undefined)
      return this.handle(workflowId).signal(cancelTurnSignal, { turnId: workflowId });
    return this.handle(workflowId)
      .cancel()
      .then(() => undefined);
  }

  /** Fire-and-forget decision; a bad one is recorded as DECISION_REJECTED in the turn's events. */
  signalDecision(turnId: string, decision: unknown): Promise<void> {
    return this.handle(turnId).signal(decideSignal, namedFor(turnId, decision as Decision));
  }

  /**
   * The turn's result; for a failed turn, the result carried in the failure (status `failed`). With the
   * agent's `output` schema, `parsed` (the structured answer) is checked against it and typed.
   */
  async result(turnId: string): Promise<TurnResult>;
  async result<T>(turnId: string, output: ZodType<T>): Promise<TurnResult & { parsed?: T }>;
  async result<T>(turnId: string, output?: ZodType<T>): Promise<TurnResult & { parsed?: T }> {
    return turnResult(this, turnId, output);
  }

  /**
   * The turn's events as they happen, by polling the `events` query for the ones after the last seen
   * (no history cost). Ends after the turn's final event. Starts after `afterSeq` (default: from the
   * beginning).
   */
  watch(
    turnId: string,
    opts: { afterSeq?: number; intervalMs?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<TurnEvent, void, unknown> {
    return watchEvents(this, turnId, opts);
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
  watchLive(
    turnId: string,
    opts: { afterSeq?: number; intervalMs?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<TurnEvent | LiveTextEvent> {
    return watchLiveEvents(this, turnId, opts);
  }

  /**
   * Turns waiting for a human on this client's task queue (every queue with `allQueues`), from
   * visibility (`TillerStatus`), without querying each workflow.
   */
  async pending(opts: { agent?: string; limit?: number; allQueues?: boolean } = {}): Promise<PendingTurn[]> {
    return listPending(this, opts);
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
    return send(this, sessionId, input, opts);
  }

  /** The session's state (the session's `state` query): turns, trust, usage, what waits. */
  sessionState(sessionId: string): Promise<SessionState> {
    return this.handle(sessionId).query(sessionStateQuery);
  }

  /** Revokes a session trust grant (from the next turn on); returns the grants left. */
  async revokeTrust(sessionId: string, tool: string, scope?: 'turn' | 'session'): Promise<TrustGrant[]> {
    return revokeTrust(this, sessionId, tool, scope);
  }

  /** Closes the client's connection. */
  async close(): Promise<void> {
    await this.temporal.connection.close();
  }
}
