/**
 * An answer gate decided from every client, against the dev server, a worker with the Slack hook, the
 * real gateway and the scripted model over HTTP: the gateway's decisions route (deny with a reason,
 * approve with edited text), the `tiller` CLI as a user types it (real processes), and Slack (the
 * posted request shows the answer; an Approve click through /slack/interactions completes the turn).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { defineAgent } from '../../src/agents/define';
import { ANSWER_TOOL } from '../../src/core/spec';
import { buildGateway, hashToken } from '../../src/gateway';
import { slackApprovals } from '../../src/slack';
import { ACTION_APPROVE } from '../../src/slack/common/refs';
import { startSlackApi, type SlackStandIn, type StoredMessage } from '../../src/testing/slack-api';
import { closeGatewayStack } from '../support/gateway-stack';
import { awaitingApproval, createHarness, waitForState, type Harness } from '../support/harness';
import { ROOT } from '../support/processes';

const BOT_TOKEN = `xoxb-${randomBytes(12).toString('hex')}`;
const SIGNING_SECRET = randomBytes(16).toString('hex');
const CHANNEL = 'C0ANSWERS';
const ALICE = 'U0ALICE';
const token = () => randomBytes(24).toString('base64url');
/** carol may edit (the args right); dave may decide but not edit. */
const T = { carol: token(), dave: token() };

/** A long answer: the Slack message must show it, cut to its bound. */
const LONG = `Dear customer, ${'we are very sorry. '.repeat(400)}`;
/** One script per turn, routed by its input (messages[1]): after a denial the last user message is the reason. */
const routes: Record<string, { content: string }[]> = {
  'gateway answer': [{ content: 'Draft one.' }, { content: 'Draft two, kinder.' }],
  'cli answer': [{ content: 'No.' }, { content: 'Yes, sorry.' }],
  'slack answer': [{ content: LONG }],
};

let h: Harness;
let slack: SlackStandIn;
let worker: Worker;
let running: Promise<void>;
let app: FastifyInstance;
let base: string;
const started: string[] = [];

beforeAll(async () => {
  h = await createHarness({
    script: ({ body }) =>
      routes[body.messages[1]?.content]?.shift() ?? { error: { status: 400, message: 'scripted model: no script' } },
  });
  slack = await startSlackApi({ token: BOT_TOKEN, signingSecret: SIGNING_SECRET });
  worker = await h.worker({
    agents: [defineAgent({ name: 'mailer', instructions: 'Reply to the customer.', tools: [], approveAnswer: true })],
    tools: [],
    hooks: [slackApprovals({ token: BOT_TOKEN, channel: CHANNEL, apiUrl: slack.url })],
  });
  running = worker.run();
  app = await buildGateway({
    tiller: h.tiller,
    identities: {
      tokens: [
        { name: 'carol', sha256: hashToken(T.carol), scopes: ['read', 'decide', 'args'] },
        { name: 'dave', sha256: hashToken(T.dave), scopes: ['read', 'decide'] },
      ],
    },
    rateLimit: false,
    slack: {
      token: BOT_TOKEN,
      signingSecret: SIGNING_SECRET,
      approvers: { [ALICE]: 'alice' },
      apiUrl: slack.url,
      showArgs: false,
    },
  });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
}, 120_000);

afterAll(
  () => closeGatewayStack({ app, started, worker, running, h, also: () => slack?.close() ?? Promise.resolve() }),
  60_000,
);

async function startTurn(input: string): Promise<string> {
  const turnId = h.turnId(input.split(' ')[0]!);
  await h.tiller.startTurn({ agent: 'mailer', input, turnId });
  started.push(turnId);
  return turnId;
}

const waitingFor = (turnId: string, id: string) =>
  waitForState(h.tiller, turnId, (s) => awaitingApproval(s) && s.pendingApprovals[0]?.id === id);

/** The model's last request for a turn's input: what it was told after a denial. */
const lastRequestFor = (input: string) =>
  h.model.requests.filter((r) => r.body.messages[1]?.content === input).at(-1)!.body.messages;

async function post(url: string, as: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${url}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

test('gateway: a denial with a reason goes back to the model; an approval with edited text is the answer', async () => {
  const turnId = await startTurn('gateway answer');
  await waitingFor(turnId, 'answer-1');
  const seen = await fetch(`${base}/turns/${turnId}`, { headers: { authorization: `Bearer ${T.carol}` } });
  expect(((await seen.json()) as { pendingApprovals: unknown[] }).pendingApprovals).toEqual([
    expect.objectContaining({ id: 'answer-1', tool: ANSWER_TOOL, args: { text: 'Draft one.' } }),
  ]);

  const denied = await post(`/turns/${turnId}/decisions`, T.carol, {
    id: 'answer-1',
    approved: false,
    reason: 'Too curt.',
  });
  expect(denied).toMatchObject({ status: 200, body: { id: 'answer-1', approved: false, approver: 'carol' } });

  await waitingFor(turnId, 'answer-2');
  // Editing the answer means seeing it: without the args right, 403 and nothing decided.
  const edit = { id: 'answer-2', approved: true, args: { text: 'Dear customer: yes, and sorry.' } };
  expect(await post(`/turns/${turnId}/decisions`, T.dave, edit)).toMatchObject({ status: 403 });
  expect(await post(`/turns/${turnId}/decisions`, T.carol, edit)).toMatchObject({
    status: 200,
    body: { id: 'answer-2', approved: true, approver: 'carol', args: edit.args },
  });

  const result = await h.tiller.result(turnId);
  expect(result).toMatchObject({ status: 'completed', output: 'Dear customer: yes, and sorry.' });
  expect(result.toolCalls.map((c) => [c.id, c.status, c.decision?.approver])).toEqual([
    ['answer-1', 'denied', 'carol'],
    ['answer-2', 'succeeded', 'carol'],
  ]);
  expect(lastRequestFor('gateway answer').at(-1)).toEqual({
    role: 'user',
    content: 'Your answer was not approved: Too curt.\nRevise your answer accordingly.',
  });
});

/** The `tiller` command as typed in a terminal, against this file's task queue. */
function tiller(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/tiller.js'), ...args], {
      cwd: ROOT,
      env: { ...process.env, TEMPORAL_ADDRESS: h.address, TILLER_TASK_QUEUE: h.taskQueue, TILLER_FROM_SOURCE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test('CLI: `tiller deny … --reason` sends the model back to revise; `tiller approve … --as` completes the turn', async () => {
  const turnId = await startTurn('cli answer');
  await waitingFor(turnId, 'answer-1');
  const shown = await tiller(['state', turnId]);
  expect(shown).toMatchObject({ code: 0 });
  expect(shown.stdout).toContain(ANSWER_TOOL);
  expect(shown.stdout).toContain('answer-1');

  const denied = await tiller(['deny', turnId, 'answer-1', '--reason', 'Say yes, and apologise.']);
  expect(denied).toMatchObject({ code: 0, stderr: '' });
  expect(denied.stdout).toContain('answer-1');
  await waitingFor(turnId, 'answer-2');
  // Deciding the answer that is no longer pending is refused with the rejected exit code.
  const again = await tiller(['approve', turnId, 'answer-1']);
  expect(again.code).toBe(2);
  expect(again.stderr).toContain('answer-1 is not pending (status: denied)');

  const approved = await tiller(['approve', turnId, 'answer-2', '--as', 'erin']);
  expect(approved).toMatchObject({ code: 0, stderr: '' });
  const result = await h.tiller.result(turnId);
  expect(result).toMatchObject({ status: 'completed', output: 'Yes, sorry.' });
  expect(result.toolCalls.map((c) => [c.id, c.status, c.decision?.approver, c.decision?.reason])).toEqual([
    // Without --as the CLI names the OS user.
    ['answer-1', 'denied', expect.stringMatching(/^cli:./), 'Say yes, and apologise.'],
    ['answer-2', 'succeeded', 'erin', undefined],
  ]);
  expect(lastRequestFor('cli answer').at(-1)).toEqual({
    role: 'user',
    content: 'Your answer was not approved: Say yes, and apologise.\nRevise your answer accordingly.',
  });
}, 120_000);

const messageOf = (turnId: string) =>
  slack.waitFor(
    () => slack.messages.find((m) => JSON.stringify(m.blocks).includes(`turn \`${turnId}\``)),
    `a message for ${turnId}`,
  );
const textOf = (m: StoredMessage) => JSON.stringify(m.blocks);

test('Slack: the request shows the answer (bounded); Approve through /slack/interactions completes the turn', async () => {
  const turnId = await startTurn('slack answer');
  const message = await messageOf(turnId);
  await waitingFor(turnId, 'answer-1');
  expect(message.channel).toBe(CHANNEL);
  expect(message.text).toBe('Approval needed: the answer of mailer');
  const text = textOf(message);
  expect(text).toContain('*mailer* wants to give this answer:');
  expect(text).toContain(JSON.stringify(LONG.slice(0, 500)).slice(1, -1));
  // Bounded: the answer is cut with a mark, and the message holds it once (not again as arguments or preview).
  expect(text).not.toContain(LONG.trimEnd());
  expect(text.split('we are very sorry.').length - 1).toBeLessThan(200);
  expect(text).not.toContain('[redacted]');
  expect(text.length).toBeLessThan(8_000);

  expect((await slack.click(base, message, ACTION_APPROVE, ALICE)).status).toBe(200);
  const result = await h.tiller.result(turnId);
  expect(result).toMatchObject({ status: 'completed', output: LONG });
  expect(result.toolCalls[0]).toMatchObject({
    id: 'answer-1',
    name: ANSWER_TOOL,
    status: 'succeeded',
    decision: { approved: true, approver: 'alice', via: 'update' },
  });
  const updated = await slack.waitFor(
    () => slack.messages.find((m) => m.ts === message.ts && m.updates.length > 0),
    'the message updated',
  );
  expect(textOf(updated)).toContain(':white_check_mark: *Approved* by *alice*.');
  expect(updated.blocks.some((b) => b.type === 'actions')).toBe(false);
});
