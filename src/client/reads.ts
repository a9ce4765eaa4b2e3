/**
 * Reading turns: a turn in brief and its events a page at a time (from its full `state` on code without
 * those queries), what waits for a human in a turn and its sub-agents, and the turns waiting for one on
 * a task queue, from visibility.
 */
import { QueryNotRegisteredError } from '@temporalio/client';
import {
  eventsQuery,
  stateQuery,
  summaryQuery,
  turnStateQuery,
  WORKFLOW_TYPE_SESSION,
  WORKFLOW_TYPE_TURN,
} from '../core/contract';
import { sessionOfTurn } from '../core/inline-turns';
import { eventsPage, summaryOf, type EventsPage, type EventsRequest, type TurnSummary } from '../core/reads';
import type { PendingApproval } from '../core/schemas';
import type { TurnState } from '../core/state';
import type { ClientCore } from './core';

/** A turn waiting for a human, as visibility lists it ({@link TillerClient.pending}). */
export interface PendingTurn {
  /** The turn's id; a session of inline turns' is its running turn's (`<session>#turn-<n>`). */
  turnId: string;
  /** A session of inline turns: the session's (workflow) id. */
  sessionId?: string;
  agent?: string;
  status?: string;
  pendingTools: string[];
  startTime: Date;
}

/** A client that reads a turn's full state (the fallback of the `summary` and `events` queries). */
type StateReader = ClientCore & { state(turnId: string): Promise<TurnState> };

/**
 * `TillerClient.state`: the `state` query; an inline turn's is its session's `turnState`, and only while
 * the session has not gone on to another turn.
 */
export async function readState(client: ClientCore, turnId: string): Promise<TurnState> {
  if (sessionOfTurn(turnId) === undefined) return client.handle(turnId).query(stateQuery);
  return sameTurn(turnId, await client.handle(turnId).query(turnStateQuery));
}

/** An inline turn's read, if the session still answers for that turn (it answers for its running or last one). */
function sameTurn<T extends { turnId?: string }>(turnId: string, read: T): T {
  if (sessionOfTurn(turnId) === undefined || read.turnId === undefined || read.turnId === turnId) return read;
  throw new Error(`turn ${turnId} has ended and its session runs ${read.turnId} now: see the session's state`);
}

/** `TillerClient.summary`: the `summary` query, else the summary of the turn's `state`. */
export async function readSummary(client: StateReader, turnId: string): Promise<TurnSummary> {
  try {
    return sameTurn(turnId, await client.handle(turnId).query(summaryQuery));
  } catch (err) {
    if (!(err instanceof QueryNotRegisteredError)) throw err;
    return summaryOf(await client.state(turnId));
  }
}

/** `TillerClient.events`: the `events` query, else the page cut from the turn's `state`. */
export async function readEvents(client: StateReader, turnId: string, req: EventsRequest): Promise<EventsPage> {
  try {
    return sameTurn(turnId, await client.handle(turnId).query(eventsQuery, req));
  } catch (err) {
    if (!(err instanceof QueryNotRegisteredError)) throw err;
    return eventsPage(await client.state(turnId), req);
  }
}

/** A client that reads turns in brief, and their sub-agents' the same way. */
interface TreeReader {
  summary(turnId: string): Promise<TurnSummary>;
  pendingTree(turnId: string): Promise<{ turnId: string; approval: PendingApproval }[]>;
}

/** `TillerClient.pendingTree`: the turn's waiting calls, then its open children's, each with its turn id. */
export async function pendingTree(
  client: TreeReader,
  turnId: string,
): Promise<{ turnId: string; approval: PendingApproval }[]> {
  const summary = await client.summary(turnId);
  // A session's (found by its waiting inline turn): the turn's own id, which names it to `decide`.
  const own = summary.pendingApprovals.map((approval) => ({ turnId: summary.turnId, approval }));
  const nested = await Promise.all(summary.openChildren.map((child) => client.pendingTree(child)));
  return [...own, ...nested.flat()];
}

/** `TillerClient.pending`: running turns whose `TillerStatus` is `awaiting_approval`, from visibility. */
export async function listPending(
  client: ClientCore,
  opts: { agent?: string; limit?: number; allQueues?: boolean },
): Promise<PendingTurn[]> {
  const query = [
    // A session of inline turns waits as the turn it runs: its id decides that turn.
    `WorkflowType IN ('${WORKFLOW_TYPE_TURN}', '${WORKFLOW_TYPE_SESSION}')`,
    `ExecutionStatus = 'Running'`,
    `TillerStatus = 'awaiting_approval'`,
    // This client's task queue only, unless asked for every queue of the namespace.
    ...(opts.allQueues ? [] : [`TaskQueue = '${client.taskQueue.replace(/'/g, '')}'`]),
    ...(opts.agent ? [`TillerAgent = '${opts.agent.replace(/'/g, '')}'`] : []),
  ].join(' AND ');
  const out: PendingTurn[] = [];
  for await (const wf of client.temporal.workflow.list({ query })) {
    const attrs = wf.typedSearchAttributes;
    const get = (name: string) => attrs.getAll().find((p) => p.key.name === name)?.value;
    out.push({
      turnId: wf.workflowId,
      ...(wf.type === WORKFLOW_TYPE_SESSION && { sessionId: wf.workflowId }),
      agent: get('TillerAgent') as string | undefined,
      status: get('TillerStatus') as string | undefined,
      pendingTools: (get('TillerPendingTools') as string[] | undefined) ?? [],
      startTime: wf.startTime,
    });
    if (out.length >= (opts.limit ?? 100)) break;
  }
  // A session of inline turns is listed by the turn it runs (one `summary` query each: visibility knows
  // the session, not which of its turns waits); if it cannot answer now, by the session's id.
  await Promise.all(
    out
      .filter((p) => p.sessionId !== undefined)
      .map(async (p) => {
        const summary = await client.temporal.workflow
          .getHandle(p.sessionId!)
          .query(summaryQuery)
          .catch(() => undefined);
        if (summary && sessionOfTurn(summary.turnId) === p.sessionId) p.turnId = summary.turnId;
      }),
  );
  return out;
}
