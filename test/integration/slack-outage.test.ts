/**
 * A Slack outage never harms a turn: 5xx and 429 (with `Retry-After`) are retried by the WebClient, a
 * Slack that stays down or cannot be reached ends as HOOK_FAILED, and the turn waits, is decided and
 * completes as if Slack did not exist. Real dev server, real worker, the Slack stand-in on loopback.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Worker } from '@temporalio/worker';
import { defineAgent } from '../../src/agents/define';
import type { TurnEvent } from '../../src/core/state/events';
import { slackApprovals } from '../../src/slack';
import type { ScriptFn } from '../../src/testing/scripted-model';
import { startSlackApi, type SlackStandIn } from '../../src/testing/slack-api';
import { awaitingApproval, createHarness, waitForState, type Harness } from '../support/harness';

const BOT_TOKEN = `xoxb-${randomBytes(12).toString('hex')}`;
const CHANNEL = 'C0APPROVALS';
const FAST_RETRY = { retries: 2, factor: 1, minTimeout: 10, maxTimeout: 20 };

/**
 * The model deletes the file named in the input; with `again:` it then asks for a second gated call,
 * so the turn is still running (waiting) while a test looks at what the first call's hooks recorded.
 */
const script: ScriptFn = ({ body }) => {
  const messages = body.messages as { role: string; content: string }[];
  const input = messages.filter((m) => m.role === 'user').pop()!.content;
  const results = messages.filter((m) => m.role === 'tool').length;
  const file = input.replace(/^again:/, '');
  if (results === 0) return { toolCalls: [{ id: 'o1', name: 'delete_file', arguments: { path: file } }] };
  if (results === 1 && input.startsWith('again:')) {
    return { toolCalls: [{ id: 'o2', name: 'delete_file', arguments: { path: file } }] };
  }
  return { content: 'done' };
};

let h: Harness;
let slack: SlackStandIn;
let worker: Worker;
let running: Promise<void>;
const started: string[] = [];

/** A port nothing listens on: Slack unreachable. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

beforeAll(async () => {
  h = await createHarness({ script });
  slack = await startSlackApi({ token: BOT_TOKEN, signingSecret: randomBytes(16).toString('hex') });
  const hook = (apiUrl: string) => slackApprovals({ token: BOT_TOKEN, channel: CHANNEL, apiUrl, retry: FAST_RETRY });
  const agent = (name: string, apiUrl: string) =>
    defineAgent({
      name,
      instructions: name,
      tools: ['delete_file'],
      approvals: { delete_file: true },
      hooks: [hook(apiUrl)],
    });
  worker = await h.worker({
    agents: [agent('steady', slack.url), agent('cutoff', `http://127.0.0.1:${await closedPort()}/api/`)],
  });
  running = worker.run();
}, 120_000);

afterAll(async () => {
  await Promise.all(started.map((id) => h.tiller.cancel(id).catch(() => undefined)));
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await running;
  await slack?.close();
  await h?.close();
}, 60_000);

async function startTurn(agent: string, prefix = ''): Promise<string> {
  const turnId = h.turnId(agent);
  fs.writeFileSync(path.join(h.workspace, `${turnId}.txt`), 'x');
  await h.tiller.startTurn({ agent, input: `${prefix}${turnId}.txt`, turnId });
  started.push(turnId);
  return turnId;
}

const hookFailures = (events: TurnEvent[]) => events.filter((e) => e.type === 'HOOK_FAILED');
const postsOf = (turnId: string) =>
  slack.calls.filter((c) => c.method === 'chat.postMessage' && JSON.stringify(c.args).includes(turnId));
const messageOf = (turnId: string) => slack.messages.find((m) => JSON.stringify(m.blocks).includes(turnId));

/** Approves the waiting call from "elsewhere" and checks the turn completed as usual. */
async function approveAndFinish(turnId: string) {
  const waiting = await waitForState(h.tiller, turnId, awaitingApproval);
  await h.tiller.approve(turnId, waiting.pendingApprovals[0]!.id, { approver: 'ops' });
  const result = await h.tiller.result(turnId);
  expect(result.status).toBe('completed');
  expect(result.toolCalls[0]).toMatchObject({ status: 'succeeded', decision: { approver: 'ops' } });
  expect(fs.existsSync(path.join(h.workspace, `${turnId}.txt`))).toBe(false);
  return h.tiller.state(turnId);
}

test('5xx answers are retried: the request is posted on the third attempt, no hook failure', async () => {
  slack.fail('chat.postMessage', { status: 503 }, { status: 500 });
  const turnId = await startTurn('steady');
  const message = await slack.waitFor(() => messageOf(turnId), 'the request posted');
  expect(message.channel).toBe(CHANNEL);
  const statuses = slack.calls.filter((c) => c.method === 'chat.postMessage').map((c) => c.status);
  expect(statuses.slice(-3)).toEqual([503, 500, 200]);
  const state = await approveAndFinish(turnId);
  expect(hookFailures(state.events)).toEqual([]);
  await slack.waitFor(() => message.updates.length > 0, 'the message updated');
  expect(JSON.stringify(message.blocks)).toContain('*Approved* by *ops*');
});

test('429 with Retry-After is honoured: the retry waits the second Slack asked for', async () => {
  const before = slack.calls.length;
  slack.fail('chat.postMessage', { status: 429, retryAfter: 1 });
  const turnId = await startTurn('steady');
  await slack.waitFor(() => messageOf(turnId), 'the request posted');
  const [limited, retried] = slack.calls.slice(before).filter((c) => c.method === 'chat.postMessage');
  expect(limited).toMatchObject({ status: 429, error: 'ratelimited' });
  expect(retried).toMatchObject({ status: 200 });
  expect(retried!.at - limited!.at).toBeGreaterThanOrEqual(1_000);
  const state = await approveAndFinish(turnId);
  expect(hookFailures(state.events)).toEqual([]);
});

test('Slack down for good: HOOK_FAILED after the retries, the turn waits and completes', async () => {
  slack.outage('chat.postMessage', { status: 503 });
  try {
    const turnId = await startTurn('steady');
    const failed = await waitForState(h.tiller, turnId, (s) => hookFailures(s.events).length > 0);
    expect(failed.status).toBe('awaiting_approval');
    expect(hookFailures(failed.events)).toEqual([
      expect.objectContaining({
        hook: 'onApprovalPending',
        hookName: 'slack',
        toolCallId: 'o1',
        error: expect.stringContaining(
          'Slack chat.postMessage failed: An HTTP protocol error occurred: statusCode = 503',
        ),
      }),
    ]);
    expect(postsOf(turnId).map((c) => c.status)).toEqual([503, 503, 503]); // 1 + 2 retries
    const state = await approveAndFinish(turnId);
    // Nothing was posted, so nothing is updated; and that is no failure.
    expect(hookFailures(state.events)).toHaveLength(1);
    expect(messageOf(turnId)).toBeUndefined();
  } finally {
    slack.recover('chat.postMessage');
  }
});

test('Slack down when the call is decided: the update fails as HOOK_FAILED, the turn goes on and completes', async () => {
  const turnId = await startTurn('steady', 'again:');
  const message = await slack.waitFor(() => messageOf(turnId), 'the request posted');
  const first = await waitForState(h.tiller, turnId, awaitingApproval);
  slack.outage('chat.update', { status: 502 });
  try {
    await h.tiller.approve(turnId, first.pendingApprovals[0]!.id, { approver: 'ops' });
    // The first call ran; the turn now waits on its second call, with the failed update recorded.
    const failed = await waitForState(
      h.tiller,
      turnId,
      (s) => hookFailures(s.events).length > 0 && s.pendingApprovals.some((p) => p.id === 'o2'),
    );
    expect(failed.toolCalls[0]).toMatchObject({ id: 'o1', status: 'succeeded' });
    expect(hookFailures(failed.events)).toEqual([
      expect.objectContaining({
        hook: 'onApprovalResolved',
        hookName: 'slack',
        toolCallId: 'o1',
        error: expect.stringContaining('1 of 1 Slack messages not updated: Slack chat.update failed'),
      }),
    ]);
    expect(message.updates).toEqual([]);
  } finally {
    slack.recover('chat.update');
  }
  await h.tiller.deny(turnId, 'o2', { approver: 'ops' });
  expect((await h.tiller.result(turnId)).status).toBe('completed');
});

test('Slack unreachable (connection refused): HOOK_FAILED, the turn completes', async () => {
  const turnId = await startTurn('cutoff');
  const failed = await waitForState(h.tiller, turnId, (s) => hookFailures(s.events).length > 0);
  expect(hookFailures(failed.events)).toEqual([
    expect.objectContaining({
      hook: 'onApprovalPending',
      hookName: 'slack',
      error: expect.stringMatching(/ECONNREFUSED/),
    }),
  ]);
  const state = await approveAndFinish(turnId);
  expect(hookFailures(state.events)).toHaveLength(1);
});
