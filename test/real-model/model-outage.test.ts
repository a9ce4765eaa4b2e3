/**
 * A real llama-server that stops answering, and one started wrong (issue 34). Each test starts a server
 * of its own (the run's shared one is left alone): one is SIGSTOP'd mid-answer — the attempt must be
 * given up within a minute (the heartbeat timeout), and the turn answered once the server is SIGCONT'd;
 * one is started without `--jinja`, so it refuses every request with tools ("500 tools param requires
 * --jinja flag") — the turn must fail at once with that message, not be retried for half a minute.
 */
import { temporal } from '@temporalio/proto';
import { defineAgent } from '../../src/agents/define';
import { describeModelActivity } from '../../src/client/live-text';
import { startLlamaServer, type LlamaServer } from '../../src/testing/llama-server';
import { createRealHarness, env, type RealHarness } from './support/harness';

const HEARTBEAT_TIMEOUT = temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_HEARTBEAT;

async function ownServer(jinja: boolean): Promise<LlamaServer> {
  return startLlamaServer({
    server: env('TILLER_TEST_LLAMA_BIN'),
    model: env('TILLER_TEST_LLAMA_GGUF'),
    chatTemplateFile: env('TILLER_TEST_LLAMA_TEMPLATE'),
    jinja,
  });
}

/** Polls `read` every 200 ms until it returns a value, failing after `ms` with `what`. */
async function until<T>(what: string, ms: number, read: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('a llama-server SIGSTOP’d mid-answer', () => {
  let llama: LlamaServer;
  let h: RealHarness;
  beforeAll(async () => {
    llama = await ownServer(true);
    h = await createRealHarness({ baseURL: llama.url });
  });
  afterAll(async () => {
    llama?.process.kill('SIGCONT');
    await h?.close();
    await llama?.stop();
  });

  const counter = defineAgent({
    name: 'counter',
    instructions: 'You count. Write every number, one per line, nothing else.',
    tools: [],
    modelSettings: { maxTokens: 200, temperature: 0, seed: 42 },
    onTruncated: 'accept',
  });

  test('is noticed within a minute, the attempt retried, and the turn answered once it runs again', async () => {
    const turnId = h.turnId('sigstop');
    await h.withWorker([counter], async () => {
      await h.tiller.startTurn({ agent: 'counter', input: 'Count from 1 to 100.', turnId });
      // Mid-answer: the stream has begun (the heartbeat carries text), then the server is stopped.
      await until('the model streaming', 120_000, async () => {
        const { model } = await describeModelActivity(h.client, turnId);
        return model?.progress?.text ? true : undefined;
      });
      llama.process.kill('SIGSTOP');
      const stoppedAt = Date.now();
      // The attempt is given up (heartbeat timeout) and a retry scheduled. The property is a time
      // bound: within a minute (the timeout is 30 s; the rest is slack for a loaded machine). Before, the
      // timer kept heartbeating and nothing happened until the attempt's 5-minute timeout.
      const retried = await until('a retry after a heartbeat timeout', 90_000, async () => {
        const { raw } = await h.client.workflow.getHandle(turnId).describe();
        const pending = raw.pendingActivities?.find((a) => a.activityType?.name === 'callModel');
        return pending && (pending.attempt ?? 1) >= 2 ? pending : undefined;
      });
      expect(Date.now() - stoppedAt).toBeLessThan(60_000);
      expect(retried.lastFailure?.timeoutFailureInfo?.timeoutType).toBe(HEARTBEAT_TIMEOUT);
      llama.process.kill('SIGCONT');
      const result = await h.tiller.result(turnId);
      expect(result.status).toBe('completed');
      expect(result.output).toMatch(/\d/);
    });
  }, 300_000);
});

describe('a llama-server started without --jinja', () => {
  let llama: LlamaServer;
  let h: RealHarness;
  beforeAll(async () => {
    llama = await ownServer(false);
    h = await createRealHarness({ baseURL: llama.url });
  });
  afterAll(async () => {
    await h?.close();
    await llama?.stop();
  });

  const reader = defineAgent({ name: 'reader', instructions: 'Read files when asked.', tools: ['read_file'] });

  test('refuses tools with a 500, and the turn fails at once with its message, not retried', async () => {
    const turnId = h.turnId('no-jinja');
    const input = 'Read notes.txt.';
    const result = await h.withWorker([reader], async () => {
      await h.tiller.startTurn({ agent: 'reader', input, turnId });
      return h.tiller.result(turnId);
    });
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(
      /^model call 1 failed: ModelServerError: model endpoint answered 500 3 times in a row with the same error \(not retried\): .*--jinja/,
    );
    // Asked three times inside one attempt: Temporal never retried it.
    const exchanges = await h.tap.exchanges(input);
    expect(exchanges.map((e) => e.status)).toEqual([500, 500, 500]);
    const history = await h.client.workflow.getHandle(turnId).fetchHistory();
    const attempts = history.events!.flatMap((e) => e.activityTaskStartedEventAttributes?.attempt ?? []);
    expect(attempts.every((a) => a === 1)).toBe(true);
  }, 180_000);
});
