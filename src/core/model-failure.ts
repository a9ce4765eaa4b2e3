/**
 * Why a model call failed, in the words a failed turn reports: the activity's own failure (typed, the
 * server's message), or — its budget (`modelRetry.budget`, the activity's schedule-to-close timeout) spent
 * while the server stayed away — that, with what the last attempt met.
 */
import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { describeFailure, FailureType } from './failures';
import { DEFAULT_MODEL_BUDGET } from './model-retry';
import type { ModelRetrySpec } from './spec';

export function describeModelFailure(err: unknown, retry: ModelRetrySpec | undefined): string {
  if (!(err instanceof ActivityFailure)) return describeFailure(err);
  const budget = retry?.budget ?? DEFAULT_MODEL_BUDGET;
  const spent = (met: string | undefined) =>
    `${FailureType.ModelUnavailable}: no answer within the model call's budget ` +
    `(${typeof budget === 'number' ? `${budget} ms` : budget}, modelRetry.budget)${met ? `; the last attempt: ${met}` : ''}`;
  const timeout = err.cause;
  if (timeout instanceof TimeoutFailure && timeout.timeoutType === TimeoutType.SCHEDULE_TO_CLOSE) {
    // The budget ran out during an attempt or a backoff. The SDK drops a timeout's cause (the last
    // attempt's failure); the raw failure still has it.
    const last = timeout.cause;
    const raw = timeout.failure?.cause;
    return spent(
      last instanceof ApplicationFailure
        ? `${last.type ?? 'Error'}: ${last.message}`
        : raw?.message
          ? `${raw.applicationFailureInfo?.type ?? 'Error'}: ${raw.message}`
          : undefined,
    );
  }
  // The next attempt would have started after the budget, so the server did not make it: the activity
  // fails with the last attempt's own failure and retry state TIMEOUT (seen on a loaded machine, where an
  // attempt's end and its backoff land past the budget before its timer fires).
  if (err.retryState === RetryState.TIMEOUT && err.cause instanceof ApplicationFailure && !err.cause.nonRetryable) {
    return spent(`${err.cause.type ?? 'Error'}: ${err.cause.message}`);
  }
  return describeFailure(err);
}
