/**
 * Approve and deny from Slack, against the real dev server, a real worker with the Slack hook, the
 * real gateway, and a stand-in for Slack on loopback (src/testing/slack-api) that both serves the Web
 * API and delivers clicks and modal submissions signed the way Slack signs them. No network.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { defineAgent } from '../../src/agents/define';
import { auditTrail } from '../../src/audit';
import { TillerClient } from '../../src/client';
import type { Decision } from '../../src/core/schemas';
import type { TurnState } from '../../src/core/state';
import { buildGateway, hashToken } from '../../src/gateway';
import { slackApprovals } from '../../src/slack';
import { ACTION_APPROVE, ACTION_DENY } from '../../src/slack/common/refs';
import { signSlackRequest } from '../../src/slack/gateway/signing';
import type { ScriptFn } from '../../src/testing/scripted-model';
import { startSlackApi, type SlackStandIn, type StoredMessage } from '../../src/testing/slack-api';
import { recordFixture } from '../support/fixtures';
import { awaitingApproval, createHarness, waitForState, type Harness } from '../support/harness';
import { closeGatewayStack } from '../support/gateway-stack';
import { countedConnection, type CountedConnection } from '../support/grpc-calls';
import { within } from '../support/wait';

const BOT_TOKEN = `xoxb-${randomBytes(12).toString('hex')}`;
const SIGNING_SECRET = randomBytes(16).toString('hex');
const CHANNEL = 'C0APPROVALS';
/** Quick, bounded retries: a 5xx is retried at once, twice (the outage test counts them). */
const FAST_RETRY = { retries: 2, factor: 1, minTimeout: 10, maxTimeout: 20 };
const USERS = { alice: 'U0ALICE', bob: 'U0BOB', carol: 'U0CAROL', stranger: 'U0STRANGER' };

/** The model asks to delete the file named in the input, saying why; then reports the tool's result. */
const script: ScriptFn = ({ body }) => {
  const messages = body.messages as { role: string; content: string }[];
  const tool = messages.filter((m) => m.role === 'tool').pop();
  if (tool) return { content: `done: ${tool.content}` };
  const file = messages.filter((m) => m.role === 'user').pop()!.content;
  return {
    content: `${file} is stale <!channel>; deleting it.`,
    toolCalls: [{ id: 'd1', name: 'delete_file', arguments: { path: file } }],
  };
};

const agent = (name: string, gate: Record<string, unknown>) =>
  defineAgent({ name, instructions: name, tools: ['read_file', 'delete_file'], approvals: { delete_file: gate } });
const agents = [
  agent('clerk', { approvers: ['alice', 'group:finance'] }),
  agent('nagging', { remindEvery: '1 second' }),
  agent('hasty', { timeout: '2 seconds' }),
];

/** The gateway's client: records the decisions it sends; `hold` keeps them waiting (Slack is answered first). */
class HeldClient extends TillerClient {
  hold: Promise<void> | undefined;
  decisions: (Decision & { turnId: string })[] = [];
  private arrived: (() => void)[] = [];
  override async decide(turnId: string, decision: Decision, updateId?: string) {
    this.decisions.push({ ...decision, turnId });
    for (const wake of this.arrived.splice(0)) wake();
    await this.hold;
    return super.decide(turnId, decision, updateId);
  }
  /** Resolves once a decision for the turn has been sent; rejects if none is within 30 s. */
  async decided(turnId: string): Promise<void> {
    const arrived = async () => {
      while (!this.decisions.some((d) => d.turnId === turnId)) await new Promise<void>((r) => this.arrived.push(r));
    };
    await within(arrived(), 30_000, `a decision sent for ${turnId}`);
  }
  of(turnId: string) {
    return this.decisions.filter((d) => d.turnId === turnId);
  }
}

let h: Harness;
let slack: SlackStandIn;
let worker: Worker;
let running: Promise<void>;
let app: FastifyInstance;
let gateway: string;
let client: HeldClient;
/** The gateway's own connection, its calls counted. */
let counted: CountedConnection;
const errors: unknown[] = [];
const started: string[] = [];

beforeAll(async () => {
  h = await createHarness({ script });
  slack = await startSlackApi({ token: BOT_TOKEN, signingSecret: SIGNING_SECRET });
  worker = await h.worker({
    agents,
    hooks: [slackApprovals({ token: BOT_TOKEN, channel: CHANNEL, apiUrl: slack.url, retry: FAST_RETRY })],
  });
  running = worker.run();
  counted = await countedConnection(h.address);
  client = new HeldClient(new Client({ connection: counted.connection }), h.taskQueue);
  app = await buildGateway({
    tiller: client,
    identities: { tokens: [{ name: 'ops', sha256: hashToken(randomBytes(24).toString('hex')) }] },
    rateLimit: false,
    slack: {
      token: BOT_TOKEN,
      signingSecret: SIGNING_SECRET,
      approvers: {
        [USERS.alice]: 'alice',
        [USERS.bob]: { name: 'bob', groups: ['finance'] },
        [USERS.carol]: 'carol',
      },
      apiUrl: slack.url,
      showArgs: false,
      retry: FAST_RETRY,
      onError: (err) => errors.push(err),
    },
  });
  gateway = await app.listen({ host: '127.0.0.1', port: 0 });
}, 120_000);

afterAll(
  () =>
    closeGatewayStack({
      app,
      started,
      worker,
      running,
      h,
      also: () => Promise.all([slack?.close(), counted?.connection.close()]),
    }),
  60_000,
);

// ---------------------------------------------------------------------------------------------
// helpers

/** Starts a turn of `agentName` that asks to delete a fresh file; returns its id and the file. */
async function startTurn(agentName: string, startedBy?: string): Promise<{ turnId: string; file: string }> {
  const turnId = h.turnId(agentName);
  const file = `${turnId}.txt`;
  fs.writeFileSync(path.join(h.workspace, file), 'secret-canary line one\nline two\n');
  await h.tiller.startTurn({ agent: agentName, input: file, turnId, ...(startedBy !== undefined && { startedBy }) });
  started.push(turnId);
  return { turnId, file };
}

/** The call a message's buttons decide. */
const ref = (m: StoredMessage) => {
  const actions = m.blocks.find((b) => b.type === 'actions') as { elements: { value: string }[] } | undefined;
  return actions
    ? (JSON.parse(actions.elements[0]!.value) as { turn: string; call: string; digest: string })
    : undefined;
};
/** The messages posted for a turn: every message names its turn (pending or resolved). */
const messagesOf = (turnId: string): StoredMessage[] =>
  slack.messages.filter((m) => textOf(m).includes(`turn \`${turnId}\``));
const firstMessage = (turnId: string) => slack.waitFor(() => messagesOf(turnId)[0], `a message for ${turnId}`);

const headerOf = (m: { blocks: Record<string, unknown>[] }) =>
  ((m.blocks[0] as { text?: { text?: string } }).text?.text ?? '') as string;
const textOf = (m: { blocks: Record<string, unknown>[] }) => JSON.stringify(m.blocks);
const hasButtons = (m: { blocks: Record<string, unknown>[] }) => m.blocks.some((b) => b.type === 'actions');
/** A copy of a message as first posted (its buttons), to click after it was updated. */
const asPosted = (m: StoredMessage): StoredMessage => structuredClone({ ...m, updates: [] });

const ephemeralFor = (since: number, pattern: RegExp) =>
  slack.waitFor(
    () =>
      slack.responses.find(
        (r) =>
          r.at >= since &&
          r.body.response_type === 'ephemeral' &&
          r.body.replace_original === false &&
          pattern.test(String(r.body.text)),
      ),
    `an ephemeral message matching ${pattern}`,
  );

const state = (turnId: string): Promise<TurnState> => h.tiller.state(turnId);

// ---------------------------------------------------------------------------------------------

test('a waiting call is posted: who, what, why, redacted arguments and preview, who may decide, buttons', async () => {
  const { turnId } = await startTurn('clerk');
  const message = await firstMessage(turnId);
  const waiting = await waitForState(h.tiller, turnId, awaitingApproval);
  const pending = waiting.pendingApprovals[0]!;

  expect(message.channel).toBe(CHANNEL);
  expect(headerOf(message)).toBe('Approval needed: delete_file');
  expect(message.text).toBe('Approval needed: delete_file (clerk)');
  const text = textOf(message);
  expect(text).toContain('*clerk* wants to call `delete_file`.');
  // The model's words are its "why", escaped: they cannot ping the channel.
  expect(text).toContain('is stale &lt;!channel&gt;; deleting it.');
  expect(text).not.toContain('<!channel>');
  // Arguments and preview as an approver without the args right sees them.
  expect(text).toContain('*Arguments*\\n```\\n[redacted]\\n```');
  expect(text).toContain('*Preview*\\n```\\n[redacted]\\n```');
  expect(text).not.toContain('"path"');
  expect(text).not.toContain('secret-canary');
  expect(text).toContain('may decide: alice, group:finance');
  expect(text).toContain('no deadline');
  const buttons = (message.blocks.find((b) => b.type === 'actions') as { elements: Record<string, unknown>[] })
    .elements;
  expect(buttons.map((b) => [b.action_id, b.style])).toEqual([
    [ACTION_APPROVE, 'primary'],
    [ACTION_DENY, 'danger'],
  ]);
  expect(JSON.parse(buttons[0]!.value as string)).toEqual({
    turn: turnId,
    call: pending.id,
    tool: 'delete_file',
    digest: pending.argsDigest,
  });
  expect(messagesOf(turnId)).toHaveLength(1);
  expect(waiting.events.filter((e) => e.type === 'HOOK_FAILED')).toEqual([]);
});

test('Approve: Slack is answered at once, the mapped approver decides, the message loses its buttons', async () => {
  const { turnId, file } = await startTurn('clerk');
  const message = await firstMessage(turnId);
  await waitForState(h.tiller, turnId, awaitingApproval);
  let release!: () => void;
  client.hold = new Promise((r) => (release = r));
  try {
    const answer = await slack.click(gateway, message, ACTION_APPROVE, USERS.alice);
    // Acknowledged while the decision is still held back: Slack's 3 seconds never depend on Temporal.
    expect(answer).toMatchObject({ status: 200, text: '' });
    expect(answer.ms).toBeLessThan(3_000);
    await client.decided(turnId);
    expect((await state(turnId)).status).toBe('awaiting_approval');
  } finally {
    release();
    client.hold = undefined;
  }
  const result = await h.tiller.result(turnId);
  expect(result.status).toBe('completed');
  expect(fs.existsSync(path.join(h.workspace, file))).toBe(false);
  const call = result.toolCalls[0]!;
  expect(call.status).toBe('succeeded');
  expect(call.decision).toMatchObject({ approved: true, approver: 'alice', via: 'update', scope: 'once' });
  expect(client.of(turnId)).toEqual([
    {
      turnId,
      id: call.id,
      approved: true,
      approver: 'alice',
      argsDigest: expect.stringMatching(/^sha256:/),
    },
  ]);
  const updated = await slack.waitFor(
    () => messagesOf(turnId).find((m) => m.updates.length > 0 && !hasButtons(m)),
    'the message updated',
  );
  expect(headerOf(updated)).toBe('Approved: delete_file');
  expect(textOf(updated)).toContain(':white_check_mark: *Approved* by *alice*.');
  expect(textOf(updated)).toContain('[redacted]');
  expect(updated.text).toBe('Approved by alice: delete_file (clerk)');
  await recordFixture(h.client, turnId, 'slack-approved');
  // The audit trail names the channel from what history keeps: Slack's update id (`slack:…`).
  const rows = await auditTrail({ client: h.client, turns: { turnIds: [turnId] } });
  expect(rows).toEqual([
    expect.objectContaining({ outcome: 'approved', approver: 'alice', channel: 'slack', via: 'update' }),
  ]);
});

test("a click costs the gateway one describe, the state query and the update (the read's worker check is the decision's)", async () => {
  const { turnId } = await startTurn('clerk');
  const message = await firstMessage(turnId);
  await waitForState(h.tiller, turnId, awaitingApproval);
  const calls = await counted.callsOf(async () => {
    await slack.click(gateway, message, ACTION_APPROVE, USERS.alice);
    await slack.waitFor(
      () => messagesOf(turnId).find((m) => m.updates.length > 0 && !hasButtons(m)),
      'the message updated',
    );
  });
  expect(calls).toEqual(['DescribeWorkflowExecution', 'QueryWorkflow', 'UpdateWorkflowExecution']);
  expect((await h.tiller.result(turnId)).status).toBe('completed');
});

test('Deny opens a modal asking for the reason; its submission denies with it', async () => {
  const { turnId, file } = await startTurn('clerk');
  const message = await firstMessage(turnId);
  await waitForState(h.tiller, turnId, awaitingApproval);
  const before = slack.views.length;
  expect((await slack.click(gateway, message, ACTION_DENY, USERS.bob)).status).toBe(200);
  const view = await slack.waitFor(() => slack.views[before], 'the deny modal');
  expect(view.view).toMatchObject({
    type: 'modal',
    callback_id: 'tiller_deny_reason',
    title: { text: 'Deny the call' },
  });
  expect(JSON.stringify(view.view.blocks)).toContain('Deny `delete_file`? The model reads your reason.');
  // The click alone decided nothing.
  expect((await state(turnId)).status).toBe('awaiting_approval');

  const answer = await slack.submit(gateway, view, USERS.bob, '  not on a Friday  ');
  expect(answer).toMatchObject({ status: 200, text: '' }); // closes the modal
  const result = await h.tiller.result(turnId);
  const call = result.toolCalls[0]!;
  expect(call.status).toBe('denied');
  expect(call.decision).toMatchObject({ approved: false, approver: 'bob', reason: 'not on a Friday' });
  expect(result.output).toContain('not on a Friday');
  expect(fs.existsSync(path.join(h.workspace, file))).toBe(true);
  const updated = await slack.waitFor(
    () => messagesOf(turnId).find((m) => m.updates.length > 0 && !hasButtons(m)),
    'the message updated',
  );
  expect(headerOf(updated)).toBe('Denied: delete_file');
  expect(textOf(updated)).toContain(':no_entry: *Denied* by *bob*.\\n>not on a Friday');
});

test('Deny without a modal: when views.open fails, the click denies without a reason and says so', async () => {
  const { turnId } = await startTurn('clerk');
  const message = await firstMessage(turnId);
  await waitForState(h.tiller, turnId, awaitingApproval);
  slack.fail('views.open', { error: 'expired_trigger_id' });
  const since = Date.now();
  expect((await slack.click(gateway, message, ACTION_DENY, USERS.alice)).status).toBe(200);
  await ephemeralFor(since, /reason dialog could not open/);
  const result = await h.tiller.result(turnId);
  expect(result.toolCalls[0]).toMatchObject({ status: 'denied', decision: { approved: false, approver: 'alice' } });
  expect(result.toolCalls[0]!.decision!.reason).toBeUndefined();
  expect(slack.calls.some((c) => c.method === 'views.open' && c.error === 'expired_trigger_id')).toBe(true);
});

test('an unmapped Slack user is told why, ephemerally, and the turn is unchanged (button and modal)', async () => {
  const { turnId } = await startTurn('clerk');
  const message = await firstMessage(turnId);
  const before = await waitForState(h.tiller, turnId, awaitingApproval);
  const since = Date.now();
  expect((await slack.click(gateway, message, ACTION_APPROVE, USERS.stranger)).status).toBe(200);
  const told = await ephemeralFor(since, /not mapped to a Tiller approver/);
  expect(told.body.text).toContain(USERS.stranger);

  // A modal opened by a mapped user and submitted by an unmapped one: refused inside the modal.
  const views = slack.views.length;
  await slack.click(gateway, message, ACTION_DENY, USERS.bob);
  const view = await slack.waitFor(() => slack.views[views], 'the deny modal');
  const answer = await slack.submit(gateway, view, USERS.stranger, 'no');
  expect(answer.status).toBe(200);
  expect(answer.json).toEqual({
    response_action: 'errors',
    errors: { reason: expect.stringContaining('not mapped to a Tiller approver') },
  });

  const after = await state(turnId);
  expect(after.status).toBe('awaiting_approval');
  expect(after.eventCount).toBe(before.eventCount);
  expect(client.of(turnId)).toEqual([]);
  await h.tiller.cancel(turnId);
});

test('gate rules apply to the mapped name: someone outside the gate is refused with nothing written; a group member approves', async () => {
  const { turnId } = await startTurn('clerk');
  const message = await firstMessage(turnId);
  const before = await waitForState(h.tiller, turnId, awaitingApproval);
  const since = Date.now();
  await slack.click(gateway, message, ACTION_APPROVE, USERS.carol);
  await ephemeralFor(since, /carol may not decide delete_file; allowed: alice, group:finance/);
  const after = await state(turnId);
  expect(after.eventCount).toBe(before.eventCount); // not even a DECISION_REJECTED
  expect(hasButtons(messagesOf(turnId)[0]!)).toBe(true);

  await slack.click(gateway, message, ACTION_APPROVE, USERS.bob);
  const result = await h.tiller.result(turnId);
  expect(result.toolCalls[0]!.decision).toMatchObject({ approved: true, approver: 'bob' });
});

test("no self-approval from Slack: the turn's starter, mapped from Slack, is refused and told why; another approver decides", async () => {
  const { turnId, file } = await startTurn('clerk', 'alice');
  const message = await firstMessage(turnId);
  await waitForState(h.tiller, turnId, awaitingApproval);
  const since = Date.now();
  await slack.click(gateway, message, ACTION_APPROVE, USERS.alice);
  await ephemeralFor(since, /alice may not decide delete_file: alice started this turn/);
  const after = await state(turnId);
  expect(after.status).toBe('awaiting_approval');
  expect(after.events.filter((e) => e.type === 'DECISION_REJECTED')).toEqual([
    expect.objectContaining({ via: 'update', approver: 'alice', reason: expect.stringContaining('self-approval') }),
  ]);
  expect(hasButtons(messagesOf(turnId)[0]!)).toBe(true);
  expect(fs.existsSync(path.join(h.workspace, file))).toBe(true);

  await slack.click(gateway, message, ACTION_APPROVE, USERS.bob);
  const result = await h.tiller.result(turnId);
  expect(result.toolCalls[0]!.decision).toMatchObject({ approved: true, approver: 'bob' });
});

test('a decision made elsewhere (the decide update from the CLI) updates every message of the call, reminders included', async () => {
  const { turnId } = await startTurn('nagging');
  const [first, reminder] = await slack.waitFor(() => {
    const ms = messagesOf(turnId);
    return ms.length >= 2 && ms;
  }, 'the request and a reminder');
  expect(headerOf(first!)).toBe('Approval needed: delete_file');
  expect(headerOf(reminder!)).toBe('Reminder 1: approval needed: delete_file');
  const { pendingApprovals } = await waitForState(h.tiller, turnId, awaitingApproval);
  await h.tiller.deny(turnId, pendingApprovals[0]!.id, { approver: 'dana', reason: 'use the archive' });
  await h.tiller.result(turnId);
  const all = await slack.waitFor(() => {
    const ms = messagesOf(turnId);
    return ms.every((m) => !hasButtons(m)) && ms;
  }, 'every message of the call updated');
  expect(all.length).toBeGreaterThanOrEqual(2);
  for (const m of all) {
    expect(headerOf(m)).toBe('Denied: delete_file');
    expect(textOf(m)).toContain(':no_entry: *Denied* by *dana*.\\n>use the archive');
  }
  // The gateway was never involved.
  expect(client.of(turnId)).toEqual([]);
  const final = await state(turnId);
  expect(final.events.filter((e) => e.type === 'HOOK_FAILED')).toEqual([]);
});

test('expiry: the message says the request expired; a late click is told so and changes nothing', async () => {
  const { turnId } = await startTurn('hasty');
  const message = await firstMessage(turnId);
  const original = asPosted(message);
  expect(textOf(message)).toContain('deadline <!date^');
  const expired = await slack.waitFor(
    () => messagesOf(turnId).find((m) => headerOf(m) === 'Expired: delete_file'),
    'the message to say expired',
  );
  expect(hasButtons(expired)).toBe(false);
  expect(textOf(expired)).toContain(':hourglass: *Expired*: nobody decided in time');
  const result = await h.tiller.result(turnId);
  expect(result.toolCalls[0]!.status).toBe('timed_out');

  const since = Date.now();
  const updates = expired.updates.length;
  await slack.click(gateway, original, ACTION_APPROVE, USERS.alice);
  await ephemeralFor(since, /no longer waits for a decision \(timed_out\)/);
  // The clicked message is brought up to date again (expired), not approved.
  const again = await slack.waitFor(() => expired.updates.length > updates && expired, 'the message re-updated');
  expect(headerOf(again)).toBe('Expired: delete_file');
  expect((await state(turnId)).toolCalls[0]!.status).toBe('timed_out');
});

test('signatures: a bad signature, a stale timestamp and a replay are refused, and decide nothing', async () => {
  const { turnId } = await startTurn('clerk');
  const message = await firstMessage(turnId);
  const before = await waitForState(h.tiller, turnId, awaitingApproval);
  const body = new URLSearchParams({
    payload: JSON.stringify({
      type: 'block_actions',
      user: { id: USERS.alice },
      actions: [{ action_id: ACTION_APPROVE, value: JSON.stringify(ref(message)!) }],
    }),
  }).toString();
  const now = Math.floor(Date.now() / 1000);

  const forged = await slack.send(gateway, body, {
    'x-slack-signature': signSlackRequest('another-secret-16b', now, body),
  });
  expect(forged).toMatchObject({ status: 401, json: { error: 'bad signature' } });
  const unsigned = await slack.send(gateway, body, { 'x-slack-signature': '' });
  expect(unsigned.status).toBe(401);
  const stale = now - 6 * 60;
  const old = await slack.send(gateway, body, {
    'x-slack-request-timestamp': String(stale),
    'x-slack-signature': signSlackRequest(SIGNING_SECRET, stale, body),
  });
  expect(old).toMatchObject({ status: 401, json: { error: 'timestamp outside the 5-minute window' } });
  const tampered = await slack.send(gateway, `${body}&x=1`, {
    'x-slack-request-timestamp': String(now),
    'x-slack-signature': signSlackRequest(SIGNING_SECRET, now, body),
  });
  expect(tampered.status).toBe(401);
  expect((await state(turnId)).eventCount).toBe(before.eventCount);

  // A valid request, then the very same bytes again.
  const headers = {
    'x-slack-request-timestamp': String(now),
    'x-slack-signature': signSlackRequest(SIGNING_SECRET, now, body),
  };
  expect((await slack.send(gateway, body, headers)).status).toBe(200);
  const replay = await slack.send(gateway, body, headers);
  expect(replay).toMatchObject({ status: 409, json: { error: 'replayed request: this signature was used' } });
  const result = await h.tiller.result(turnId);
  expect(result.toolCalls[0]!.decision).toMatchObject({ approved: true, approver: 'alice' });
  expect(client.of(turnId)).toHaveLength(1);
});

test('hostile bodies get a defined answer and decide nothing', async () => {
  const { turnId } = await startTurn('clerk');
  const message = await firstMessage(turnId);
  const before = await waitForState(h.tiller, turnId, awaitingApproval);
  const form = (payload: unknown) => new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const click = (extra: Record<string, unknown>) => ({
    type: 'block_actions',
    user: { id: USERS.alice },
    actions: [{ action_id: ACTION_APPROVE, value: JSON.stringify(ref(message)!) }],
    ...extra,
  });
  const expectAnswer = async (body: string, status: number, error?: RegExp, headers?: Record<string, string>) => {
    const answer = await slack.send(gateway, body, headers);
    expect({ status: answer.status, body: body.slice(0, 80) }).toEqual({ status, body: body.slice(0, 80) });
    if (error) expect(answer.json.error).toMatch(error);
  };

  await expectAnswer(`payload=${'x'.repeat(200 * 1024)}`, 413);
  await expectAnswer(JSON.stringify(click({})), 415, /unsupported media type/i, { 'content-type': 'application/json' });
  await expectAnswer('text=hello', 400, /expected one payload field/);
  await expectAnswer(`${form(click({}))}&${form(click({}))}`, 400, /expected one payload field/);
  await expectAnswer('payload=%7Bnot%20json', 400, /not JSON/);
  await expectAnswer(form([1, 2, 3]), 400, /no type/);
  await expectAnswer(`payload=${'['.repeat(50_000)}${']'.repeat(50_000)}`, 400, /no type/);
  await expectAnswer(
    form(click({ actions: [{ action_id: ACTION_APPROVE, value: 1 }] })),
    400,
    /malformed block_actions/,
  );
  await expectAnswer(form(click({ user: { id: 'U'.repeat(10_000) } })), 400, /malformed block_actions/);
  const nested = `${'{"n":'.repeat(5_000)}"deep"${'}'.repeat(5_000)}`;
  const deep = JSON.stringify(click({ actions: 'NESTED' })).replace('"NESTED"', nested);
  await expectAnswer(new URLSearchParams({ payload: deep }).toString(), 400, /malformed block_actions|not JSON/);
  // Kinds Tiller does not handle, and buttons that are not Tiller's, are acknowledged and ignored.
  await expectAnswer(form({ type: 'shortcut', callback_id: 'x', user: { id: USERS.alice } }), 200);
  await expectAnswer(form({ type: 'view_closed', view: { id: 'V1' }, user: { id: USERS.alice } }), 200);
  await expectAnswer(form(click({ actions: [{ action_id: 'someone_elses', value: 'x' }] })), 200);
  // A Tiller button whose value names no call: told so (the stand-in's response URL), nothing decided.
  const since = Date.now();
  const clicked = await slack.click(
    gateway,
    { ...asPosted(message), blocks: forgedButtons('{"turn":1}') },
    ACTION_APPROVE,
    USERS.alice,
  );
  expect(clicked.status).toBe(200);
  await ephemeralFor(since, /does not name a Tiller call/);

  const after = await state(turnId);
  expect(after.status).toBe('awaiting_approval');
  expect(after.eventCount).toBe(before.eventCount);
  expect(client.of(turnId)).toEqual([]);
  await h.tiller.cancel(turnId);
});

function forgedButtons(value: string): Record<string, unknown>[] {
  return [
    {
      type: 'actions',
      block_id: 'tiller_decision',
      elements: [{ type: 'button', action_id: ACTION_APPROVE, text: { type: 'plain_text', text: 'Approve' }, value }],
    },
  ];
}

test('the interactivity URL is public, in the OpenAPI document, and only there when Slack is configured', async () => {
  const doc = (await (await fetch(`${gateway}/openapi.json`)).json()) as { paths: Record<string, any> };
  expect(doc.paths['/slack/interactions'].post.security).toEqual([]);
  const plain = await buildGateway({ tiller: client, identities: { tokens: [{ name: 'x', sha256: hashToken('t') }] } });
  try {
    const url = await plain.listen({ host: '127.0.0.1', port: 0 });
    expect((await fetch(`${url}/slack/interactions`, { method: 'POST' })).status).toBe(404);
    const plainDoc = (await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(plainDoc.paths)).not.toContain('/slack/interactions');
  } finally {
    await plain.close();
  }
});

test('the only failure reported on the gateway side was the modal that could not open', () => {
  expect(errors.map((e) => (e as Error).message)).toEqual([
    'Slack views.open failed: An API error occurred: expired_trigger_id',
  ]);
});
