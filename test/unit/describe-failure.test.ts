/** src/core/failures.ts `describeFailure`: an activity's failure and a local activity's read the same. */
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { describeFailure } from '../../src/core/failures';

const cause = () =>
  ApplicationFailure.create({ type: 'McpServerUnavailable', message: 'MCP server dead is unreachable' });

test("an activity's failure: its cause's type and message", () => {
  const err = new ActivityFailure(
    'Activity task failed',
    'startTurn',
    '1',
    RetryState.NON_RETRYABLE_FAILURE,
    'w',
    cause(),
  );
  expect(describeFailure(err)).toBe('McpServerUnavailable: MCP server dead is unreachable');
});

test("a local activity's failure (not wrapped) reads the same (a lean run starts in a local activity)", () => {
  expect(describeFailure(cause())).toBe('McpServerUnavailable: MCP server dead is unreachable');
});

test('an error without a type: its message', () => {
  expect(describeFailure(ApplicationFailure.create({ message: 'plain' }))).toBe('plain');
  expect(describeFailure(new Error('boom'))).toBe('boom');
});
