/**
 * What one decision through the gateway costs in Temporal calls (issue 38): every gRPC call of the
 * gateway's own connection, counted by method. A decision describes the turn once (the worker check,
 * which also tells whether the turn has ended), asks for its summary (the approver gate) and sends the
 * update; the task queue's worker check (DescribeTaskQueue) is remembered for a few seconds and left
 * out of the counts.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { defineAgent } from '../../src/agents/define';
import { TillerClient } from '../../src/client';
import { buildGateway, hashToken, signWebhook } from '../../src/gateway';
import { countedConnection, type CountedConnection } from '../support/grpc-calls';
import { createHarness, pausedDeleteTurn, type Harness } from '../support/harness';

const keeper = defineAgent({
  name: 'keeper',
  instructions: 'Keep the files tidy.',
  tools: ['read_file', 'delete_file'],
  approvals: { delete_file: { approvers: ['group:finance', 'webhook:sam'] } },
});

const token = () => randomBytes(24).toString('base64url');
const T = { alice: token(), dan: token() };
const WEBHOOK_SECRET = randomBytes(24).toString('hex');

let h: Harness;
let worker: Worker;
let running: Promise<void>;
let counted: CountedConnection;
let app: FastifyInstance;
let base: string;
const started: string[] = [];

beforeAll(async () => {
  h = await createHarness();
  worker = await h.worker({ agents: [keeper] });
  running = worker.run();
  counted = await countedConnection(h.address);
  app = await buildGateway({
    tiller: new TillerClient(new Client({ connection: counted.connection }), h.taskQueue),
    identities: {
      tokens: [
        { name: 'alice', groups: ['finance'], sha256: hashToken(T.alice), scopes: ['read', 'decide'] },
        { name: 'dan', sha256: hashToken(T.dan), scopes: ['read', 'decide'] },
      ],
    },
    webhookSecret: WEBHOOK_SECRET,
    rateLimit: false,
    queryTimeoutMs: 5_000,
  });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
}, 120_000);

afterAll(async () => {
  await app?.close();
  await counted?.connection.close();
  await Promise.all(started.map((id) => h.tiller.cancel(id).catch(() => undefined)));
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await running;
  await h?.close();
}, 60_000);

async function post(url: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(`${base}${url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const decide = (as: string, turnId: string, body: unknown) =>
  post(`/turns/${turnId}/decisions`, body, { authorization: `Bearer ${as}` });

/** A turn waiting for a decision on its `delete_file` call `del`. */
const pausedTurn = (label: string) => pausedDeleteTurn(h, 'keeper', label, `${label}.txt`, started);

/** The methods `fn` made the gateway call, the task queue's worker check left out. */
const callsOf = (fn: () => Promise<unknown>) => counted.callsOf(fn);

test('a decision costs one describe, the summary query and the update', async () => {
  const turnId = await pausedTurn('one-describe');
  let res: Awaited<ReturnType<typeof decide>> | undefined;
  const calls = await callsOf(async () => (res = await decide(T.alice, turnId, { id: 'del', approved: false })));
  expect(res).toMatchObject({ status: 200, body: { approved: false, approver: 'alice' } });
  expect(calls).toEqual(['DescribeWorkflowExecution', 'QueryWorkflow', 'UpdateWorkflowExecution']);
  await h.tiller.result(turnId);

  // The same call again: the turn has ended, which the one describe already told (409, no second describe).
  const again = await callsOf(async () => (res = await decide(T.alice, turnId, { id: 'del', approved: true })));
  expect(res!.status).toBe(409);
  expect(again.filter((m) => m === 'DescribeWorkflowExecution')).toEqual(['DescribeWorkflowExecution']);
});

test('an approver outside the gate is refused after one describe and the summary, nothing sent', async () => {
  const turnId = await pausedTurn('outside-gate');
  let res: Awaited<ReturnType<typeof decide>> | undefined;
  const calls = await callsOf(async () => (res = await decide(T.dan, turnId, { id: 'del', approved: true })));
  expect(res).toMatchObject({
    status: 403,
    body: { error: 'dan may not decide delete_file; allowed: group:finance, webhook:sam' },
  });
  expect(calls).toEqual(['DescribeWorkflowExecution', 'QueryWorkflow']);
});

test('a signed webhook decision costs one describe and the update', async () => {
  const turnId = await pausedTurn('webhook');
  const body = JSON.stringify({ turnId, id: 'del', approved: false, approver: 'sam' });
  const ts = Math.floor(Date.now() / 1000);
  let res: Awaited<ReturnType<typeof post>> | undefined;
  const calls = await callsOf(
    async () =>
      (res = await post('/webhooks/decision', body, {
        'x-tiller-timestamp': String(ts),
        'x-tiller-signature': signWebhook(WEBHOOK_SECRET, ts, body),
      })),
  );
  expect(res).toMatchObject({ status: 200, body: { approved: false } });
  expect(calls).toEqual(['DescribeWorkflowExecution', 'UpdateWorkflowExecution']);
});
