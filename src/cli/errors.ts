/**
 * Expected failures and their exit codes. Everything the CLI can foresee (no server, no worker, no
 * such turn, a refused decision) becomes one readable line and a distinct code, never a stack trace.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { DecisionRejectedError } from '../client';
import { noWorkerMessage } from '../client/workers';

export const EXIT = {
  ok: 0,
  failed: 1,
  rejected: 2,
  unavailable: 3,
  notFound: 4,
  interrupted: 130,
} as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
  }
  override readonly name = 'CliError';
}

export interface ErrorContext {
  address: string;
  taskQueue: string;
  turnId?: string;
}

/** The error and its causes, outermost first. */
function chain(err: unknown): { name: string; message: string; code?: unknown }[] {
  const out: { name: string; message: string; code?: unknown }[] = [];
  let current: unknown = err;
  for (let depth = 0; current && depth < 10; depth++) {
    const e = current as { name?: unknown; message?: unknown; code?: unknown; details?: unknown; cause?: unknown };
    const details = typeof e.details === 'string' ? ` ${e.details}` : '';
    out.push({ name: String(e.name ?? ''), message: `${String(e.message ?? current)}${details}`, code: e.code });
    current = e.cause;
  }
  return out;
}

const GRPC_UNAVAILABLE = 14;

export function isNoPollerError(err: unknown): boolean {
  return chain(err).some((e) => /no poller seen|query timed out before a worker could process it/i.test(e.message));
}

export function isConnectionError(err: unknown): boolean {
  return chain(err).some(
    (e) =>
      e.code === GRPC_UNAVAILABLE ||
      e.name === 'TransportError' ||
      /\b14 UNAVAILABLE\b/.test(e.message) ||
      /failed to connect before the deadline|tcp connect error|ECONNREFUSED/i.test(e.message),
  );
}

export { noWorkerMessage };

export function unreachable(address: string, err: unknown): CliError {
  const reason = err instanceof Error ? err.message : String(err);
  return new CliError(`cannot reach Temporal at ${address}: ${reason}`, EXIT.unavailable);
}

/** Maps any error to the line to print and the exit code. */
export function explain(err: unknown, ctx: ErrorContext): { message: string; exitCode: number } {
  if (err instanceof CliError) return { message: err.message, exitCode: err.exitCode };
  if (err instanceof DecisionRejectedError) return { message: `rejected: ${err.message}`, exitCode: EXIT.rejected };
  if (err instanceof WorkflowNotFoundError) {
    const id = ctx.turnId ?? err.workflowId;
    if (/already completed/i.test(err.message)) {
      return { message: `rejected: turn ${id} has already ended`, exitCode: EXIT.rejected };
    }
    return { message: `no turn ${id}`, exitCode: EXIT.notFound };
  }
  if (isNoPollerError(err)) return { message: noWorkerMessage(ctx.taskQueue), exitCode: EXIT.unavailable };
  if (isConnectionError(err)) return { message: unreachable(ctx.address, err).message, exitCode: EXIT.unavailable };
  const message = err instanceof Error ? err.message : String(err);
  const detail = process.env.TILLER_DEBUG && err instanceof Error && err.stack ? `\n${err.stack}` : '';
  return { message: `error: ${message}${detail}`, exitCode: EXIT.failed };
}
