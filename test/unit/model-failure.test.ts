/**
 * What a failed model call says (src/core/model-failure.ts): its budget spent is said so, whether the
 * budget's timer fired (a timeout) or the server declined an attempt that would have started past it
 * (the last attempt's failure, retry state TIMEOUT: what CI met on a loaded machine in
 * test/integration/model-retry.test.ts).
 */
import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { describeModelFailure } from '../../src/core/model-failure';

const unavailable = () =>
  ApplicationFailure.create({ type: 'ModelUnavailable', message: 'model endpoint answered 503: Loading model' });
const activity = (retryState: RetryState, cause: Error) =>
  new ActivityFailure('Activity task failed', 'callModel', '1', retryState, 'worker', cause);
const spent =
  "ModelUnavailable: no answer within the model call's budget (4 seconds, modelRetry.budget); " +
  'the last attempt: ModelUnavailable: model endpoint answered 503: Loading model';

test('the budget spent between attempts (the server made no attempt past it) is said so', () => {
  expect(describeModelFailure(activity(RetryState.TIMEOUT, unavailable()), { budget: '4 seconds' })).toBe(spent);
});

test("the budget's timer firing is said the same way, with the last attempt's failure", () => {
  const timeout = new TimeoutFailure('activity timed out', undefined, TimeoutType.SCHEDULE_TO_CLOSE);
  Object.assign(timeout, { cause: unavailable() });
  expect(describeModelFailure(activity(RetryState.TIMEOUT, timeout), { budget: '4 seconds' })).toBe(spent);
});

test('a failure that was not retried, or stopped for another reason, is the activity’s own', () => {
  const fatal = ApplicationFailure.create({ type: 'ModelServerError', message: 'bad request', nonRetryable: true });
  expect(describeModelFailure(activity(RetryState.NON_RETRYABLE_FAILURE, fatal), undefined)).toBe(
    'ModelServerError: bad request',
  );
  expect(describeModelFailure(activity(RetryState.MAXIMUM_ATTEMPTS_REACHED, unavailable()), undefined)).toBe(
    'ModelUnavailable: model endpoint answered 503: Loading model',
  );
  expect(describeModelFailure(new Error('plain'), undefined)).toBe('plain');
});

test('the default budget is named when the agent sets none', () => {
  expect(describeModelFailure(activity(RetryState.TIMEOUT, unavailable()), undefined)).toContain(
    "no answer within the model call's budget (10 minutes, modelRetry.budget)",
  );
});
