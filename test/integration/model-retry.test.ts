/**
 * Model calls bounded by time, not by count (issue 34), against the scripted model (a real HTTP server):
 * a 4xx and a repeated identical 500 fail at once with the server's message; an outage shorter than the
 * budget is ridden out however many attempts it takes, a longer one ends at the budget saying so; a
 * stream that stalls is noticed by the heartbeat timeout and the attempt retried.
 */
import { temporal } from '@temporalio/proto';
import { defineAgent } from '../../src/agents/define';
import { createHarness, type Harness } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => {
  h.model.requests.length = 0;
});

const agents = [
  defineAgent({ name: 'unary', instructions: 'x', tools: [], stream: false }),
  defineAgent({ name: 'streamer', instructions: 'x', tools: [] }),
  defineAgent({ name: 'brief', instructions: 'x', tools: [], stream: false, modelRetry: { budget: '4 seconds' } }),
  defineAgent({ name: 'impatient', instructions: 'x', tools: [], modelRetry: { firstToken: '2 seconds' } }),
];

/** Runs one turn of `agent` to its end; its result and the model activity's started events. */
async function turn(agent: string, label: string) {
  const turnId = h.turnId(label);
  return h.withWorker(
    async () => {
      await h.tiller.startTurn({ agent, input: 'go', turnId });
      const result = await h.tiller.result(turnId);
      const history = await h.client.workflow.getHandle(turnId).fetchHistory();
      const started = history.events!.flatMap((e) => e.activityTaskStartedEventAttributes ?? []);
      return { result, started };
    },
    { agents },
  );
}

const unavailable = { error: { status: 503, message: 'Loading model', headers: { 'retry-after-ms': '100' } } };

test('a 4xx fails the turn at once, not retried, with the server’s own message', async () => {
  h.model.setScript([{ error: { status: 413, message: 'request body too large for this server' } }, { content: 'no' }]);
  const { result } = await turn('unary', 'status-413');
  expect(result.status).toBe('failed');
  expect(result.error).toBe(
    'model call 1 failed: ModelBadRequest: model endpoint answered 413: request body too large for this server (not retried)',
  );
  expect(h.model.requests).toHaveLength(1);
});

test('the same 500 three times in a row fails the call at once with the server’s message (a configuration error)', async () => {
  const jinja = { error: { status: 500, message: 'tools param requires --jinja flag', type: 'server_error' } };
  // Retried by count, the fourth request would have been answered: the call must not get there.
  h.model.setScript([jinja, jinja, jinja, { content: 'too late' }]);
  const { result, started } = await turn('unary', 'same-500');
  expect(result.status).toBe('failed');
  expect(result.error).toBe(
    'model call 1 failed: ModelServerError: model endpoint answered 500 3 times in a row with the same error ' +
      '(not retried): tools param requires --jinja flag',
  );
  expect(h.model.requests).toHaveLength(3);
  // All three inside the first attempt: Temporal never retried it.
  expect(started.map((s) => s.attempt)).toEqual([1]); // callModel (a lean run starts in a local activity)
});

test('a 500 whose message changes is retried like any server error, and the turn recovers', async () => {
  h.model.setScript([
    { error: { status: 500, message: 'slot 0 failed' } },
    { error: { status: 500, message: 'slot 1 failed' } },
    { error: { status: 500, message: 'slot 0 failed' } },
    { content: 'recovered' },
  ]);
  const { result } = await turn('unary', 'varied-500');
  expect(result).toMatchObject({ status: 'completed', output: 'recovered' });
  expect(h.model.requests).toHaveLength(4);
});

test('an outage shorter than the budget is ridden out, however many attempts it takes', async () => {
  // Nine failed attempts (more than the six a count allowed: a connection reset, then "503 Loading model"
  // with retry-after 100 ms), then the server is back.
  let asked = 0;
  h.model.setScript(() => (asked++ === 0 ? { reset: true } : asked <= 9 ? unavailable : { content: 'back' }));
  const { result, started } = await turn('unary', 'outage');
  expect(result).toMatchObject({ status: 'completed', output: 'back' });
  expect(h.model.requests).toHaveLength(10);
  expect(started.at(-1)?.attempt).toBe(10);
});

test('an outage longer than the budget fails the call at its budget, saying what the last attempt met', async () => {
  h.model.setScript(() => unavailable);
  const { result } = await turn('brief', 'past-budget');
  expect(result.status).toBe('failed');
  expect(result.error).toBe(
    "model call 1 failed: ModelUnavailable: no answer within the model call's budget (4 seconds, modelRetry.budget); " +
      'the last attempt: ModelUnavailable: model endpoint answered 503: Loading model',
  );
  // Retried until then (how many times depends on the machine's speed; the budget is what ends it).
  expect(h.model.requests.length).toBeGreaterThan(1);
});

test('a stream that stalls is noticed by the heartbeat timeout (within a minute) and the attempt retried', async () => {
  // The first answer sends its opening chunk, then nothing for ten minutes; the second answers.
  h.model.setScript([{ content: 'never finished', chunkDelayMs: 600_000 }, { content: 'second try' }]);
  const { result, started } = await turn('streamer', 'stall');
  expect(result).toMatchObject({ status: 'completed', output: 'second try' });
  expect(h.model.requests).toHaveLength(2);
  const [first, second] = h.model.requests;
  // The property is itself a time bound: a stalled server noticed within a minute (the heartbeat
  // timeout is 30 s; the rest is slack for a loaded machine). Before, the attempt ran its 5 minutes.
  expect(second!.at - first!.at).toBeLessThan(60_000);
  const retried = started.at(-1)!;
  expect(retried.attempt).toBe(2);
  expect(retried.lastFailure?.timeoutFailureInfo?.timeoutType).toBe(
    temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_HEARTBEAT,
  );
}, 120_000);

test('a server silent before its first chunk for longer than the heartbeat timeout is waited for (up to firstToken)', async () => {
  // 40 s before the headers and the first chunk (a long prompt read on a CPU): past the 30 s heartbeat
  // timeout, well within the 2-minute firstToken. The attempt says it is waiting, and is not given up.
  h.model.setScript([{ content: 'thought it over', delayMs: 40_000 }]);
  const { result, started } = await turn('streamer', 'slow-first-token');
  expect(result).toMatchObject({ status: 'completed', output: 'thought it over' });
  expect(h.model.requests).toHaveLength(1);
  expect(started.at(-1)?.attempt).toBe(1);
}, 120_000);

test('an attempt that gets no first chunk within firstToken gives up and is retried', async () => {
  h.model.setScript([{ content: 'too late', delayMs: 30_000 }, { content: 'on time' }]);
  const { result, started } = await turn('impatient', 'first-token');
  expect(result).toMatchObject({ status: 'completed', output: 'on time' });
  expect(h.model.requests).toHaveLength(2);
  const retried = started.at(-1)!;
  expect(retried.attempt).toBe(2);
  expect(retried.lastFailure?.message).toBe(
    'no answer from the model within 2 s (modelRetry.firstToken); the attempt is retried',
  );
  expect(retried.lastFailure?.applicationFailureInfo?.type).toBe('ModelUnavailable');
});
