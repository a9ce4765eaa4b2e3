/**
 * Starting turns and reading their results: the `agentTurn` workflow started (eagerly when the client
 * shares a worker's `NativeConnection`), and its result — a failed turn's included — checked against
 * the agent's output schema.
 */
import { randomUUID } from 'node:crypto';
import {
  InternalConnectionLikeSymbol,
  ServiceError,
  WorkflowFailedError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import type { ZodType } from 'zod';
import {
  runningTurnAttributes,
  missingSearchAttributes,
  turnDetails,
  turnResultUpdate,
  turnSummary,
  WORKFLOW_TYPE_TURN,
} from '../core/contract';
import { sessionOfTurn } from '../core/inline-turns';
import { turnResultOf } from '../core/failures';
import { formatZodError, type TrustGrant, type TurnResult } from '../core/schemas';
import type { ClientCore } from './core';

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

export interface TillerClientOptions {
  /**
   * Ask the server to hand a new turn's first workflow task straight back to a worker of this
   * process (eager workflow start: no trip through the task queue). Only a client on the worker's own
   * `NativeConnection` can; the default is on exactly then. Without a worker of this process on the
   * task queue (or a free slot) the server dispatches the turn as usual.
   */
  eagerStart?: boolean;
  /**
   * Start each turn with its search attributes as a running turn shows them (`TillerStatus` running,
   * `TillerAgent`, `TillerSession`), so the turn does not set them in its first task: one history event
   * and one visibility update less a turn. Unset: when the namespace lists them (asked once, before the
   * first start); `true` starts with them without asking. A start the namespace refuses for them (they
   * were removed) is made again without them, and the client then starts without.
   */
  searchAttributes?: boolean;
}

/** What `startTurn` needs of its client: besides its core, whether to start turns with search attributes. */
export interface TurnStarter extends ClientCore {
  readonly eagerStart: boolean;
  /** Whether starts carry the search attributes; unset until the namespace was asked (`TillerClientOptions.searchAttributes`). */
  startSearchAttributes: boolean | undefined;
}

/** Whether the client's connection can take an eager workflow start (a `NativeConnection`, shared with workers). */
export function supportsEagerStart(client: Client): boolean {
  const connection = client.connection as { [InternalConnectionLikeSymbol]?: { supportsEagerStart?: boolean } };
  return connection[InternalConnectionLikeSymbol]?.supportsEagerStart === true;
}

/** `TillerClient.startTurn`: starts an `agentTurn` workflow and returns its handle. */
export async function startTurn(client: TurnStarter, opts: StartTurnOptions): Promise<WorkflowHandle> {
  const turnId = opts.turnId ?? `turn-${randomUUID()}`;
  return withStartAttributes(client, (withAttributes) => start(client, opts, turnId, withAttributes));
}

/**
 * Starts with the search attributes when the client does. A namespace without them refuses the start
 * (INVALID_ARGUMENT; an update-with-start's refusal names no attribute): the same start without them is
 * tried, and when it succeeds the client starts without them from then on.
 */
export async function withStartAttributes<T>(
  client: TurnStarter,
  start: (withAttributes: boolean) => Promise<T>,
): Promise<T> {
  client.startSearchAttributes ??= await namespaceHasThem(client);
  if (!client.startSearchAttributes) return start(false);
  try {
    return await start(true);
  } catch (err) {
    if (!invalidArgument(err)) throw err;
    const started = await start(false);
    client.startSearchAttributes = false;
    return started;
  }
}

function start(client: TurnStarter, opts: StartTurnOptions, turnId: string, withAttributes: boolean) {
  return client.temporal.workflow.start(WORKFLOW_TYPE_TURN, {
    taskQueue: client.taskQueue,
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
    ...(client.eagerStart && { requestEagerStart: true }),
    ...(withAttributes && { typedSearchAttributes: runningTurnAttributes(opts.agent, opts.sessionId) }),
  });
}

/**
 * Whether the client's namespace lists every one of Tiller's search attributes (a read every role may
 * make). A server that cannot say (the SDK's time-skipping test server) or refuses counts as without:
 * a start with attributes a namespace lacks is refused, and that server even keeps the refused id.
 */
async function namespaceHasThem(client: ClientCore): Promise<boolean> {
  try {
    const { namespace } = client.temporal.options;
    const listed = await client.temporal.connection.operatorService.listSearchAttributes({ namespace });
    return missingSearchAttributes(listed.customAttributes).length === 0;
  } catch {
    return false;
  }
}

/** A gRPC INVALID_ARGUMENT, as the client throws it (itself, or as the cause of a `ServiceError`). */
function invalidArgument(err: unknown): boolean {
  const code = (e: unknown) => (e as { code?: unknown } | undefined)?.code;
  return (
    code(err) === GRPC_INVALID_ARGUMENT || (err instanceof ServiceError && code(err.cause) === GRPC_INVALID_ARGUMENT)
  );
}

/** gRPC's status code INVALID_ARGUMENT. */
const GRPC_INVALID_ARGUMENT = 3;

/** `TillerClient.result`: the turn's result, a failed turn's from its failure, `parsed` checked against `output`. */
export async function turnResult<T>(
  client: ClientCore,
  turnId: string,
  output?: ZodType<T>,
): Promise<TurnResult & { parsed?: T }> {
  let result: TurnResult;
  try {
    // An inline turn's result is its session's to give (`turnResult`: waits for the turn's end).
    result =
      sessionOfTurn(turnId) !== undefined
        ? await client.handle(turnId).executeUpdate(turnResultUpdate, { args: [{ turnId }] })
        : ((await client.handle(turnId).result()) as TurnResult);
  } catch (err) {
    // The session's refusal (a turn whose result it no longer holds), said as itself.
    if (err instanceof WorkflowUpdateFailedError) throw new Error(err.cause?.message ?? err.message, { cause: err });
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
