/**
 * Reading turns: a turn in brief and its events a page at a time (from its full `state` on code without
 * those queries), what waits for a human in a turn and its sub-agents, and the turns waiting for one on
 * a task queue, from visibility.
 */
import { QueryNotRegisteredError } from '@temporalio/client';
import { eventsQuery, summaryQuery, TillerStatus, WORKFLOW_TYPE_TURN } from '../core/contract';
import { eventsPage, summaryOf, type EventsPage, type EventsRequest, type TurnSummary } from '../core/reads';
import type { PendingApproval } from '../core/schemas';
import type { TurnState } from '../core/state';
import type { ClientCore } from './core';

/** A turn waiting for a human, as visibility lists it ({@link TillerClient.pending}). */
export interface PendingTurn {
  turnId: string;
  agent?: string;
  status?: string;
  pendingTools: string[];
  startTime: Date;
}

/** A client that reads a turn's full state (the fallback of the `summary` and `events` queries). */
type StateReader = ClientCore & { state(turnId: string): Promise<TurnState> };

/** `TillerClient.summary`: the `summary` query, else the summary of the turn's `state`. */
export async function readSummary(client: StateReader, turnId: string): Promise<TurnSummary> {
  try {
    return await client.handle(turnId).query(summaryQuery);
  } catch (err) {
    if (!(err instanceof QueryNotRegisteredError)) throw err;
    return summaryOf(await client.state(turnId));
  }
}

/** `TillerClient.events`: the `events` query, else the page cut from the turn's `state`. */
export async function readEvents(client: StateReader, turnId: string, req: EventsRequest): Promise<EventsPage> {
  try {
    return await client.handle(turnId).query(eventsQuery, req);
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
  const own = summary.pendingApprovals.map((approval) => ({ turnId, approval }));
  const nested = await Promise.all(summary.openChildren.map((child) => client.pendingTree(child)));
  return [...own, ...nested.flat()];
}

/**
 * `TillerClient.waiting`: the turn's own calls waiting for a decision. Describe first — the server's
 * copy of the turn's `TillerStatus`, no worker involved — and query the turn only when it says the
 * turn waits. A poll that finds nothing costs no query, and no query rides on a workflow task: one that
 * does, on a task that runs a local activity (the start, a preview), makes core complete that task
 * early and force another (three history events; a gated step's +0.63 tasks in CAPACITY.md).
 * A turn without Tiller's search attributes (a namespace without them) is queried once it has
 * completed a workflow task: nothing waits before that.
 */
export async function readWaiting(client: SummaryReader, turnId: string): Promise<PendingApproval[]> {
  return (await readWaitingCounted(client, turnId)).calls;
}

/** {@link readWaiting}, saying whether it queried the turn (the capacity run counts queries). */
export async function readWaitingCounted(
  client: SummaryReader,
  turnId: string,
): Promise<{ calls: PendingApproval[]; queried: boolean }> {
  const described = await client.handle(turnId).describe();
  if (described.status.name !== 'RUNNING') return { calls: [], queried: false };
  const status = described.typedSearchAttributes.get(TillerStatus);
  // Started, its first task scheduled, and started: no task has completed, so nothing waits yet.
  const none = status === undefined ? described.historyLength <= FIRST_TASK_EVENTS : status !== 'awaiting_approval';
  if (none) return { calls: [], queried: false };
  return { calls: (await client.summary(turnId)).pendingApprovals, queried: true };
}
type SummaryReader = ClientCore & { summary(turnId: string): Promise<TurnSummary> };
const FIRST_TASK_EVENTS = 3;

/** `TillerClient.pending`: running turns whose `TillerStatus` is `awaiting_approval`, from visibility. */
export async function listPending(
  client: ClientCore,
  opts: { agent?: string; limit?: number; allQueues?: boolean },
): Promise<PendingTurn[]> {
  const query = [
    `WorkflowType = '${WORKFLOW_TYPE_TURN}'`,
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
      agent: get('TillerAgent') as string | undefined,
      status: get('TillerStatus') as string | undefined,
      pendingTools: (get('TillerPendingTools') as string[] | undefined) ?? [],
      startTime: wf.startTime,
    });
    if (out.length >= (opts.limit ?? 100)) break;
  }
  return out;
}
