/**
 * The Slack pieces without a server: v0 signing, configuration from env, the approver map, Block Kit
 * messages within Slack's limits (checked by the stand-in's validator), the deny modal, interaction
 * payload parsing, outcomes, and the hook receipts of the approval activities.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { createApprovalHookActivities } from '../../src/activities/approval-hooks';
import type { TillerHooks } from '../../src/agents/hooks';
import { argsDigest } from '../../src/core/digest';
import type { ToolCallRecord } from '../../src/core/schemas';
import type { ApprovalPendingContext } from '../../src/core/spec';
import { SlackApprovers } from '../../src/slack/common/approvers';
import { slackInteractionsFromEnv, slackPostingFromEnv, SlackConfigError } from '../../src/slack/common/config';
import { pendingMessage, resolvedMessage } from '../../src/slack/common/messages';
import { denyModal } from '../../src/slack/gateway/modal';
import { outcomeOfRecord, outcomeOfResolved } from '../../src/slack/common/outcome';
import { parseInteractionBody } from '../../src/slack/gateway/payloads';
import { signSlackRequest, SlackRequestVerifier, SLACK_WINDOW_MS } from '../../src/slack/gateway/signing';
import { checkBlocks, checkModal } from '../../src/testing/slack-api';

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';

describe('v0 signing', () => {
  const body = Buffer.from('payload=%7B%22type%22%3A%22block_actions%22%7D');
  const at = 1_700_000_000;
  const verifier = (now = at * 1000) => new SlackRequestVerifier(SECRET, { now: () => now });

  test("matches Slack's documented base string v0:<timestamp>:<body>", () => {
    const { createHmac } = jest.requireActual<typeof import('node:crypto')>('node:crypto');
    const expected = createHmac('sha256', SECRET).update(`v0:${at}:${body.toString()}`).digest('hex');
    expect(signSlackRequest(SECRET, at, body)).toBe(`v0=${expected}`);
  });

  // Slack's own worked example (https://api.slack.com/authentication/verifying-requests-from-slack,
  // "Validating a request"): its signing secret, timestamp, slash-command body and the signature Slack
  // gives for them — a known answer, not one computed here the same way as the code (issue 34).
  const SLACK_EXAMPLE = {
    secret: '8f742231b10e8888abcd99yyyzzz85a5',
    timestamp: '1531420618',
    body:
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&' +
      'channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&' +
      'response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&' +
      'trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
    signature: 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
  };

  test("Slack's published example: the same signature, and the verifier accepts it at its time", () => {
    const { secret, timestamp, body: raw, signature } = SLACK_EXAMPLE;
    expect(signSlackRequest(secret, timestamp, raw)).toBe(signature);
    const v = new SlackRequestVerifier(secret, { now: () => Number(timestamp) * 1000 + 1_000 });
    expect(v.check(timestamp, signature, Buffer.from(raw))).toEqual({ type: 'verified' });
  });

  test('accepts a fresh, correctly signed request once; a replay is refused', () => {
    const v = verifier();
    const sig = signSlackRequest(SECRET, at, body);
    expect(v.check(String(at), sig, body)).toEqual({ type: 'verified' });
    expect(v.check(String(at), sig, body)).toEqual({
      type: 'refused',
      status: 409,
      reason: 'replayed request: this signature was used',
    });
  });

  test('refuses missing headers, malformed and wrong signatures, bodies that differ', () => {
    const v = verifier();
    const sig = signSlackRequest(SECRET, at, body);
    expect(v.check(undefined, sig, body)).toMatchObject({ status: 401 });
    expect(v.check(String(at), undefined, body)).toMatchObject({ status: 401 });
    expect(v.check('17e8', sig, body)).toMatchObject({ status: 401, reason: 'bad timestamp' });
    for (const bad of [
      sig.slice(3),
      `v1=${sig.slice(3)}`,
      `${sig}00`,
      'v0=zz',
      signSlackRequest('other-secret-16b!', at, body),
    ]) {
      expect(v.check(String(at), bad, body)).toMatchObject({ status: 401, reason: 'bad signature' });
    }
    expect(v.check(String(at), sig, Buffer.concat([body, Buffer.from('&x=1')]))).toMatchObject({ status: 401 });
  });

  test('refuses timestamps more than 5 minutes away, either way; a replay after the window reads as stale', () => {
    const sig = (t: number) => signSlackRequest(SECRET, t, body);
    const past = at - 301;
    const future = at + 301;
    expect(verifier().check(String(past), sig(past), body)).toMatchObject({ status: 401, reason: /5-minute window/ });
    expect(verifier().check(String(future), sig(future), body)).toMatchObject({ status: 401 });
    let now = at * 1000;
    const v = new SlackRequestVerifier(SECRET, { now: () => now });
    expect(v.check(String(at), sig(at), body).type).toBe('verified');
    now += SLACK_WINDOW_MS + 1_000;
    expect(v.check(String(at), sig(at), body)).toMatchObject({ status: 401, reason: /window/ });
  });

  test('remembers a bounded number of signatures', () => {
    const v = new SlackRequestVerifier(SECRET, { now: () => at * 1000, maxRemembered: 2 });
    const one = (n: number) => Buffer.from(`payload=${n}`);
    expect(v.check(String(at), signSlackRequest(SECRET, at, one(1)), one(1)).type).toBe('verified');
    expect(v.check(String(at), signSlackRequest(SECRET, at, one(2)), one(2)).type).toBe('verified');
    expect(v.check(String(at), signSlackRequest(SECRET, at, one(3)), one(3))).toMatchObject({ status: 409 });
  });

  test('a short signing secret is a configuration error', () => {
    expect(() => new SlackRequestVerifier('short')).toThrow(/at least 16 bytes/);
  });
});

describe('configuration from env', () => {
  const token = 'xoxb-1234-5678-abcdef';
  test('posting is off without a channel; a channel needs the bot token', () => {
    expect(slackPostingFromEnv({})).toBeUndefined();
    expect(slackPostingFromEnv({ TILLER_SLACK_BOT_TOKEN: token })).toBeUndefined();
    expect(() => slackPostingFromEnv({ TILLER_SLACK_CHANNEL: 'C0123ABCD' })).toThrow(
      'TILLER_SLACK_BOT_TOKEN is required to post to TILLER_SLACK_CHANNEL',
    );
    expect(slackPostingFromEnv({ TILLER_SLACK_CHANNEL: '#approvals', TILLER_SLACK_BOT_TOKEN: token })).toEqual({
      token,
      channel: '#approvals',
      apiUrl: 'https://slack.com/api/',
      showArgs: false,
    });
    expect(
      slackPostingFromEnv({
        TILLER_SLACK_CHANNEL: 'C0123ABCD',
        TILLER_SLACK_BOT_TOKEN: token,
        TILLER_SLACK_API_URL: 'http://127.0.0.1:9/api',
        TILLER_SLACK_SHOW_ARGS: '1',
      }),
    ).toMatchObject({ apiUrl: 'http://127.0.0.1:9/api/', showArgs: true });
  });

  test('bad values are refused with the variable named', () => {
    const bad = (env: NodeJS.ProcessEnv, message: RegExp) => {
      expect(() =>
        slackPostingFromEnv({ TILLER_SLACK_CHANNEL: 'C0123ABCD', TILLER_SLACK_BOT_TOKEN: token, ...env }),
      ).toThrow(message);
    };
    bad({ TILLER_SLACK_BOT_TOKEN: 'not a token' }, /TILLER_SLACK_BOT_TOKEN: a Slack bot token/);
    bad({ TILLER_SLACK_CHANNEL: 'general chat' }, /TILLER_SLACK_CHANNEL/);
    bad({ TILLER_SLACK_API_URL: 'ftp://slack.com/api' }, /TILLER_SLACK_API_URL/);
    bad({ TILLER_SLACK_SHOW_ARGS: 'yes' }, /TILLER_SLACK_SHOW_ARGS/);
    expect(() => slackPostingFromEnv({ TILLER_SLACK_CHANNEL: 'C0123ABCD', TILLER_SLACK_BOT_TOKEN: 'x' })).toThrow(
      SlackConfigError,
    );
  });

  test('interactivity is off without a signing secret; with one it needs the approver map and the token', () => {
    const secret = { TILLER_SLACK_SIGNING_SECRET: SECRET };
    expect(slackInteractionsFromEnv({ TILLER_SLACK_APPROVERS: '{}' })).toBeUndefined();
    expect(() => slackInteractionsFromEnv(secret)).toThrow(/TILLER_SLACK_APPROVERS is required/);
    expect(() => slackInteractionsFromEnv({ ...secret, TILLER_SLACK_APPROVERS: '{"U0ALICE":"alice"}' })).toThrow(
      /TILLER_SLACK_BOT_TOKEN is required/,
    );
    const env = { ...secret, TILLER_SLACK_BOT_TOKEN: token };
    expect(() => slackInteractionsFromEnv({ ...env, TILLER_SLACK_APPROVERS: '{alice' })).toThrow(/not JSON/);
    expect(() => slackInteractionsFromEnv({ ...env, TILLER_SLACK_APPROVERS: '{"alice":"alice"}' })).toThrow(
      /TILLER_SLACK_APPROVERS: alice: not a Slack user id/,
    );
    expect(() => slackInteractionsFromEnv({ ...env, TILLER_SLACK_APPROVERS: '{"U0ALICE":"al ice"}' })).toThrow(
      /no whitespace/,
    );
    expect(() => slackInteractionsFromEnv({ ...env, TILLER_SLACK_APPROVERS: '{"U0ALICE":"webhook:x"}' })).toThrow(
      /reserved/,
    );
    expect(() => slackInteractionsFromEnv({ ...env, TILLER_SLACK_SIGNING_SECRET: 'short' })).toThrow(/at least 16/);
    expect(
      slackInteractionsFromEnv({
        ...env,
        TILLER_SLACK_APPROVERS: '{"U0ALICE":"alice","W0BOB":{"name":"bob","groups":["finance"]}}',
      }),
    ).toEqual({
      token,
      signingSecret: SECRET,
      approvers: { U0ALICE: { name: 'alice', groups: [] }, W0BOB: { name: 'bob', groups: ['finance'] } },
      apiUrl: 'https://slack.com/api/',
      showArgs: false,
    });
  });
});

test('the approver map: mapped users only, no prototype keys', () => {
  const approvers = new SlackApprovers({ U0ALICE: 'alice', U0BOB: { name: 'bob', groups: ['finance'] } });
  expect(approvers.lookup('U0ALICE')).toEqual({ name: 'alice', groups: [] });
  expect(approvers.lookup('U0BOB')).toEqual({ name: 'bob', groups: ['finance'] });
  for (const id of ['U0CAROL', '__proto__', 'constructor', 'toString', ''])
    expect(approvers.lookup(id)).toBeUndefined();
  expect(() => new SlackApprovers({ U0ALICE: { name: 'alice', extra: 1 } as never })).toThrow(/U0ALICE/);
});

describe('Block Kit messages stay within Slack limits and escape what they quote', () => {
  const call = (over: Partial<ApprovalPendingContext['call']> = {}): ApprovalPendingContext['call'] => ({
    agent: 'ops',
    turnId: 'turn-1',
    workflowId: 'turn-1',
    toolCallId: 'call_1',
    tool: 'delete_file',
    args: { path: 'a.txt' },
    ...over,
  });
  const pending = (over: Partial<ApprovalPendingContext> = {}): ApprovalPendingContext => ({
    call: call(),
    argsDigest: 'sha256:salted-by-the-turn',
    reminder: 0,
    escalated: false,
    ...over,
  });
  const sectionTexts = (blocks: Record<string, unknown>[]) =>
    blocks.filter((b) => b.type === 'section').map((b) => (b.text as { text: string }).text);

  test('huge, hostile arguments, preview and reasons are cut and escaped; every message is valid Block Kit', () => {
    const hostile = `<!channel> <@U0BOSS> \`\`\` & ${'x'.repeat(100_000)}`;
    const ctx = pendingMessage(
      pending({
        call: call({ agent: 'a'.repeat(1_000), tool: `t${'o'.repeat(400)}`, args: { text: hostile, more: hostile } }),
        preview: hostile,
        approvers: Array.from({ length: 200 }, (_, i) => `approver-${i}`),
        expiresAt: '2030-01-01T00:00:00.000Z',
      }),
      { showArgs: true, why: hostile },
    );
    expect(checkBlocks(ctx.blocks, 'message')).toBeUndefined();
    const json = JSON.stringify(ctx);
    expect(json).not.toContain('<!channel>');
    expect(json).not.toContain('<@U0BOSS>');
    expect(json).toContain('&lt;!channel&gt;');
    expect(json.length).toBeLessThan(16_000);
    for (const text of sectionTexts(ctx.blocks)) {
      expect(text.length).toBeLessThanOrEqual(3_000);
      // No code block is closed early by a ``` in the arguments.
      expect((text.match(/```/g) ?? []).length % 2).toBe(0);
    }
    for (const outcome of [
      outcomeOfResolved({
        outcome: 'approved',
        decision: { id: 'c', approved: true, scope: 'turn', at: 'x', via: 'update', approver: hostile },
      }),
      outcomeOfResolved({
        outcome: 'denied',
        decision: { id: 'c', approved: false, scope: 'once', at: 'x', via: 'update', reason: hostile },
      }),
      outcomeOfResolved({ outcome: 'timed_out' }),
      { type: 'ended', turnStatus: 'cancelled' } as const,
    ]) {
      const done = resolvedMessage({ ...call(), args: hostile }, outcome, { showArgs: true });
      expect(checkBlocks(done.blocks, 'message')).toBeUndefined();
      expect(done.blocks.some((b) => b.type === 'actions')).toBe(false);
      expect(JSON.stringify(done)).not.toContain('<@U0BOSS>');
    }
  });

  test('arguments and preview are redacted unless shown; reminders and escalations say so', () => {
    const redacted = JSON.stringify(pendingMessage(pending({ preview: 'first lines' }), { showArgs: false }));
    expect(redacted).not.toContain('a.txt');
    expect(redacted).not.toContain('first lines');
    expect(redacted).toContain('[redacted]');
    const shown = JSON.stringify(pendingMessage(pending({ preview: 'first lines' }), { showArgs: true }));
    expect(shown).toContain('\\"path\\": \\"a.txt\\"');
    expect(shown).toContain('first lines');
    const header = (c: ApprovalPendingContext) =>
      (pendingMessage(c, { showArgs: false }).blocks[0]!.text as { text: string }).text;
    expect(header(pending({ reminder: 2 }))).toBe('Reminder 2: approval needed: delete_file');
    expect(header(pending({ reminder: 3, escalated: true }))).toBe('Escalated: approval needed: delete_file');
  });

  test("the buttons carry the turn's own argsDigest (salted), not one computed from the arguments", () => {
    const actions = pendingMessage(pending(), { showArgs: false }).blocks.find(
      (b) => b.type === 'actions',
    ) as unknown as {
      elements: { value: string }[];
    };
    for (const button of actions.elements) {
      expect(JSON.parse(button.value)).toEqual({
        turn: 'turn-1',
        call: 'call_1',
        tool: 'delete_file',
        digest: 'sha256:salted-by-the-turn',
      });
    }
    expect(JSON.stringify(actions)).not.toContain(argsDigest('delete_file', { path: 'a.txt' }));
  });

  test('ids too long for a button value: no buttons, a note instead', () => {
    const long = pendingMessage(
      pending({ call: call({ workflowId: 'w'.repeat(1_000), toolCallId: 'c'.repeat(1_000) }) }),
      {
        showArgs: false,
      },
    );
    expect(checkBlocks(long.blocks, 'message')).toBeUndefined();
    expect(long.blocks.some((b) => b.type === 'actions')).toBe(false);
    // The whole commands, as printed (runnable: nothing cut).
    const texts = long.blocks.map((b) => (b as { text?: { text: string } }).text?.text);
    expect(texts).toContain(`\`npx tiller approve ${'w'.repeat(1_000)} ${'c'.repeat(1_000)}\``);
    expect(texts).toContain(`\`npx tiller deny ${'w'.repeat(1_000)} ${'c'.repeat(1_000)} --reason "..."\``);
  });

  test('the deny modal is a valid view; metadata that does not fit drops the response URL, then the modal', () => {
    const ref = { turn: 't', call: 'c', tool: 'delete_file', digest: 'sha256:00' };
    const modal = denyModal({ ref, where: { channel: 'C1', ts: '1.2', responseUrl: 'https://hooks.slack.com/x' } })!;
    expect(checkModal(modal)).toBeUndefined();
    expect(JSON.parse(modal.private_metadata)).toEqual({
      ref,
      where: { channel: 'C1', ts: '1.2', responseUrl: 'https://hooks.slack.com/x' },
    });
    const big = { ...ref, turn: 't'.repeat(1_000), call: 'c'.repeat(1_000) };
    const trimmed = denyModal({ ref: big, where: { responseUrl: `https://hooks.slack.com/${'r'.repeat(1_000)}` } })!;
    expect(JSON.parse(trimmed.private_metadata).where).toEqual({});
    // Ids whose JSON is longer than private_metadata allows: no modal (the click then denies without one).
    expect(denyModal({ ref: { ...ref, turn: '"'.repeat(1_000), call: '"'.repeat(1_000) }, where: {} })).toBeUndefined();
  });
});

test('outcomes from a turn state: waiting, expired, decided, or the turn ended first', () => {
  const record = (over: Partial<ToolCallRecord>): ToolCallRecord => ({
    id: 'c',
    name: 't',
    args: {},
    status: 'running',
    ...over,
  });
  expect(outcomeOfRecord(record({ status: 'awaiting_approval' }), 'awaiting_approval')).toBeUndefined();
  expect(outcomeOfRecord(record({ status: 'timed_out' }), 'completed')).toEqual({ type: 'timed_out' });
  expect(
    outcomeOfRecord(
      record({
        status: 'succeeded',
        decision: { approved: true, scope: 'turn', at: 'now', via: 'update', approver: 'a' },
      }),
      'completed',
    ),
  ).toEqual({ type: 'approved', approver: 'a', scope: 'turn', edited: false, at: 'now' });
  expect(
    outcomeOfRecord(
      record({ status: 'denied', decision: { approved: false, scope: 'once', at: 'now', via: 'signal', reason: 'r' } }),
      'completed',
    ),
  ).toEqual({ type: 'denied', reason: 'r', at: 'now' });
  expect(outcomeOfRecord(record({ status: 'failed' }), 'cancelled')).toEqual({
    type: 'ended',
    turnStatus: 'cancelled',
  });
});

test('interaction bodies: one payload field of JSON with a known type, else a reason', () => {
  const form = (payload: string) => Buffer.from(new URLSearchParams({ payload }).toString());
  expect(parseInteractionBody(Buffer.from(''))).toEqual({ type: 'invalid', reason: 'expected one payload field' });
  expect(parseInteractionBody(form('nope'))).toEqual({ type: 'invalid', reason: 'the payload is not JSON' });
  expect(parseInteractionBody(form('"str"'))).toEqual({ type: 'invalid', reason: 'the payload has no type' });
  expect(parseInteractionBody(form('{"type":"message_action"}'))).toEqual({ type: 'ignored', kind: 'message_action' });
  expect(parseInteractionBody(form('{"type":"block_actions","user":{"id":"U1"},"actions":[]}'))).toMatchObject({
    type: 'invalid',
    reason: expect.stringMatching(/^malformed block_actions: actions/),
  });
  const ok = parseInteractionBody(
    form(
      JSON.stringify({
        type: 'block_actions',
        user: { id: 'U1' },
        actions: [{ action_id: 'a', value: 'v' }],
        extra: { deep: [1] },
      }),
    ),
  );
  expect(ok).toEqual({
    type: 'interaction',
    interaction: { type: 'block_actions', user: { id: 'U1' }, actions: [{ action_id: 'a', value: 'v' }] },
  });
});

describe('hook receipts in the approval activities', () => {
  const ctx: ApprovalPendingContext = {
    call: { agent: 'a', turnId: 't', workflowId: 't', toolCallId: 'c', tool: 'x', args: {} },
    argsDigest: 'sha256:00',
    reminder: 0,
    escalated: false,
  };
  const activities = (hooks: TillerHooks[]) => createApprovalHookActivities({ hooksFor: () => hooks });
  const inActivity = <T>(fn: () => Promise<T>): Promise<T> => new MockActivityEnvironment().run(fn);

  test('only a hook that also has onApprovalResolved keeps what it returns, small, shallow and JSON', async () => {
    const seen: unknown[] = [];
    const acts = activities([
      { name: 'plain', onApprovalPending: () => ({ ignored: true }) },
      {
        name: 'chat',
        onApprovalPending: () => ({ ts: '1.2' }),
        onApprovalResolved: (c) => void seen.push(['chat', c.receipts]),
      },
      { name: 'big', onApprovalPending: () => 'x'.repeat(3_000), onApprovalResolved: () => undefined },
      { name: 'odd', onApprovalPending: () => BigInt(1), onApprovalResolved: () => undefined },
      {
        name: 'deep',
        // 100 levels in 201 characters: small, but deeper than any JSON the turn keeps.
        onApprovalPending: () => JSON.parse(`${'['.repeat(100)}${']'.repeat(100)}`),
        onApprovalResolved: () => undefined,
      },
      {
        name: 'quiet',
        onApprovalPending: () => undefined,
        onApprovalResolved: (c) => void seen.push(['quiet', c.receipts]),
      },
    ]);
    const done = await inActivity(() => acts.notifyApprovalPending(ctx));
    expect(done.receipts).toEqual([{ hook: 'chat', value: { ts: '1.2' } }]);
    expect(done.hookFailures).toEqual([
      expect.objectContaining({
        hook: 'onApprovalPending',
        hookName: 'big',
        error: expect.stringMatching(/3002 characters; the limit is 2000/),
      }),
      expect.objectContaining({ hook: 'onApprovalPending', hookName: 'odd' }),
      expect.objectContaining({
        hook: 'onApprovalPending',
        hookName: 'deep',
        error: expect.stringMatching(/nested deeper than 64 levels/),
      }),
    ]);
    const resolved = await inActivity(() =>
      acts.notifyApprovalResolved({
        call: ctx.call,
        outcome: 'timed_out',
        receipts: [...done.receipts!, { hook: 'chat', value: { ts: '3.4' } }, { hook: 'other', value: 1 }],
      }),
    );
    expect(resolved.hookFailures).toEqual([]);
    expect(seen).toEqual([
      ['chat', [{ ts: '1.2' }, { ts: '3.4' }]],
      ['quiet', []],
    ]);
  });

  test('a throwing onApprovalResolved is a hook failure, not an error', async () => {
    const acts = activities([{ name: 'chat', onApprovalResolved: () => Promise.reject(new Error('slack down')) }]);
    expect(
      (await inActivity(() => acts.notifyApprovalResolved({ call: ctx.call, outcome: 'approved', receipts: [] })))
        .hookFailures,
    ).toEqual([{ hook: 'onApprovalResolved', hookName: 'chat', error: 'slack down' }]);
  });
});
