/**
 * A user's own worker with no model configured (no `openai` client, neither `OPENAI_API_KEY` nor
 * `OPENAI_BASE_URL`): its turns fail at once, not retried, with `ModelNotConfigured` and one line saying
 * what to set — not half a minute of retries against api.openai.com.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { TillerClient } from '../../src/client';
import { turnResultOf } from '../../src/core/failures';
import { MODEL_NOT_CONFIGURED } from '../../src/activities/model-config';
import { useHarness } from '../support/harness';

const h = useHarness();

test('no model configured: the turn fails with ModelNotConfigured and one line saying what to set', async () => {
  const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
  delete process.env.OPENAI_API_KEY;
  delete process.env.OPENAI_BASE_URL;
  const warn = jest.spyOn(process, 'emitWarning');
  const taskQueue = `unconfigured-${randomUUID()}`;
  let worker;
  try {
    worker = await h.worker({ openai: undefined, taskQueue });
  } finally {
    if (saved.key !== undefined) process.env.OPENAI_API_KEY = saved.key;
    if (saved.url !== undefined) process.env.OPENAI_BASE_URL = saved.url;
  }
  const tiller = new TillerClient(h.client, taskQueue);
  const turnId = h.turnId('unconfigured');
  const err = await worker.runUntil(async () => {
    await tiller.startTurn({ agent: 'assistant', input: 'hello', turnId });
    return h.client.workflow
      .getHandle(turnId)
      .result()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
  });
  // Said once at the worker's start, too.
  expect(warn).toHaveBeenCalledWith(MODEL_NOT_CONFIGURED, { code: 'TILLER_MODEL_NOT_CONFIGURED' });
  warn.mockRestore();
  expect(MODEL_NOT_CONFIGURED).not.toContain('\n');
  expect(MODEL_NOT_CONFIGURED).toMatch(/set OPENAI_API_KEY .* or OPENAI_BASE_URL/);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const result = turnResultOf((err as WorkflowFailedError).cause!);
  expect(result?.status).toBe('failed');
  expect(result?.error).toBe(`model call 1 failed: ModelNotConfigured: ${MODEL_NOT_CONFIGURED}`);
  // One attempt: not retried.
  const history = await h.client.workflow.getHandle(turnId).fetchHistory();
  const failed = history.events!.filter((e) => e.activityTaskFailedEventAttributes);
  expect(failed).toHaveLength(1);
  expect(failed[0]!.activityTaskFailedEventAttributes!.failure!.applicationFailureInfo).toMatchObject({
    type: 'ModelNotConfigured',
    nonRetryable: true,
  });
});
