/** HTTP errors of the gateway: every failure is `{ "error": "<message>" }`, never a stack trace. */
import { ServiceError, WorkflowNotFoundError } from '@temporalio/client';
import { DecisionRejectedError } from '../client';

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    /** More fields of the JSON answer, beside `error`. */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

const GRPC_DEADLINE_EXCEEDED = 4;
const GRPC_UNAVAILABLE = 14;

/**
 * The status of a decision the workflow refused, from the validator's (stable, documented) messages:
 * a malformed payload or edited arguments that fail the tool's schema → 422; an approver outside the
 * gate's list (or the turn's starter approving its own call) and a send into someone else's session →
 * 403; everything about the call's state (unknown id, no longer pending, already decided, a digest of
 * other arguments, a busy session) → 409.
 */
export function rejectionStatus(message: string): 403 | 409 | 422 {
  if (/^malformed decision|^edited args/.test(message)) return 422;
  if (/ may not decide | may not send into /.test(message)) return 403;
  return 409;
}

/** Maps an error from Temporal or the Tiller client to an HttpError (unknown ones to 502). */
export function toHttpError(err: unknown, what: string): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof DecisionRejectedError) return new HttpError(rejectionStatus(err.message), err.message);
  if (err instanceof WorkflowNotFoundError) return new HttpError(404, `${what} not found`);
  const code = grpcCode(err);
  if (code === GRPC_DEADLINE_EXCEEDED) {
    return new HttpError(504, `${what} did not answer in time (is a worker running for its task queue?)`);
  }
  if (code === GRPC_UNAVAILABLE) return new HttpError(503, 'Temporal is unavailable');
  const name = (err as { name?: string })?.name;
  if (name === 'QueryNotRegisteredError') return new HttpError(400, `${what} is not a Tiller turn`);
  return new HttpError(502, `Temporal error while reading or changing ${what}`);
}

function grpcCode(err: unknown): number | undefined {
  for (let e: any = err, depth = 0; e && depth < 5; e = e.cause, depth++) {
    if (typeof e.code === 'number') return e.code;
    if (!(e instanceof ServiceError) && !(e instanceof Error)) break;
  }
  return undefined;
}
