/**
 * Principals (issue 12): a session belongs to the identity that created it, so its trust grants and
 * conversation never reach another caller; a turn records who started it, and that person may not
 * approve its own gated calls unless the gate allows it. Through the real gateway and the library.
 */
import { randomBytes } from 'node:crypto';
import type { Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import type { TurnState } from '../../src/core/state';
import { buildGateway, hashToken } from '../../src/gateway';
import { defineTool } from '../../src/tools/define';
import { recordFixture } from '../support/fixtures';
import { awaitingApproval, createHarness, scriptByInput, waitForState, type Harness } from '../support/harness';
import { pollUntil } from '../support/wait';

const removed: string[] = [];
const rm = defineTool({
  name: 'rm',
  description: 'remove',
  input: z.object({ path: z.string() }),
  execute: ({ path }) => {
    removed.push(path);
    return `removed ${path}`;
  },
});
const keeper = defineAgent({ name: 'keeper', instructions: 'Keep.', tools: ['rm'], approvals: { rm: true } });
const boss = defineAgent({
  name: 'boss',
  instructions: 'Delegate.',
  tools: [],
  subAgents: { helper: { agent: 'keeper', description: 'Hand a removal to the keeper.' } },
});
const selfie = defineAgent({
  name: 'selfie',
  instructions: 'Self.',
  tools: ['rm'],
  approvals: { rm: { allowSelfApproval: true } },
});

const token = () => randomBytes(24).toString('base64url');
const T = { alice: token(), bob: token(), carol: token() };
const rmCall = (id: string, path: string) => ({ toolCalls: [{ id, name: 'rm', arguments: { path } }] });

let h: Harness;
let worker: Worker;
let running: Promise<void>;
let app: FastifyInstance;
let base: string;
const started: string[] = [];

beforeAll(async () => {
  h = await createHarness();
  worker = await h.worker({ agents: [keeper, selfie, boss], tools: [rm] });
  running = worker.run();
  app = await buildGateway({
    tiller: h.tiller,
    identities: {
      tokens: [
        { name: 'alice', sha256: hashToken(T.alice), scopes: ['read', 'start', 'decide', 'args'] },
        { name: 'bob', sha256: hashToken(T.bob), scopes: ['read', 'start', 'decide', 'args'] },
        { name: 'carol', sha256: hashToken(T.carol), scopes: ['read', 'decide', 'args'] },
      ],
    },
    rateLimit: false,
    queryTimeoutMs: 5_000,
  });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
}, 120_000);

afterAll(async () => {
  await app?.close();
  await Promise.all(started.map((id) => h.tiller.cancel(id).catch(() => undefined)));
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await running;
  await h?.close();
}, 60_000);

beforeEach(() => {
  removed.length = 0;
});

async function call(method: string, url: string, as: string, body?: unknown) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${as}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Waits until the session has taken in the end of its current turn. */
async function sessionIdle(sessionId: string) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const s = await h.tiller.sessionState(sessionId);
    if (s.status === 'idle') return s;
    if (Date.now() > deadline) throw new Error(`session ${sessionId} stayed busy: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a session belongs to the principal that created it', () => {
  test("another caller's send is 403: the session's trust and conversation never reach them", async () => {
    const sessionId = `owned-${randomBytes(4).toString('hex')}`;
    started.push(sessionId);
    h.model.setScript(
      scriptByInput({
        first: [rmCall('r1', 'alice-1'), { content: 'one' }],
        // What bob's turn would do if it ran: a gated call, approved "via trust" granted to alice.
        'show me': [rmCall('r2', 'bob-1'), { content: 'bob was here' }],
        anonymous: [rmCall('r2', 'anonymous-1'), { content: 'anonymous was here' }],
        second: [rmCall('r3', 'alice-2'), { content: 'two' }],
      }),
    );
    const first = await call('POST', '/turns', T.alice, { agent: 'keeper', input: 'first', sessionId });
    expect(first.status).toBe(201);
    const t1 = first.body.turnId as string;
    await waitForState(h.tiller, t1, awaitingApproval);
    const approved = await call('POST', `/turns/${t1}/decisions`, T.carol, {
      id: 'r1',
      approved: true,
      scope: 'session',
    });
    expect(approved.status).toBe(200);
    expect((await h.tiller.result(t1)).output).toBe('one');
    const before = await sessionIdle(sessionId);
    expect(before.trust.map((t) => t.tool)).toEqual(['rm']);

    const intruder = await call('POST', '/turns', T.bob, { agent: 'keeper', input: 'show me', sessionId });
    expect(intruder.status).toBe(403);
    expect(intruder.body.error).toBe(`session ${sessionId} belongs to alice; bob may not send into it`);

    // A Temporal client sending without a principal is refused as well (it would act as nobody).
    await expect(h.tiller.send(sessionId, 'anonymous', { agent: 'keeper' })).rejects.toThrow(
      `session ${sessionId} belongs to alice; a send without a principal may not go into it`,
    );
    const after = await h.tiller.sessionState(sessionId);
    expect(after.owner).toEqual({ name: 'alice', groups: [] });
    expect(after.turns).toHaveLength(1);
    expect(after.conversationLength).toBe(2);
    expect(removed).toEqual(['alice-1']);

    // The owner goes on, with the trust she was granted.
    const second = await call('POST', '/turns', T.alice, { agent: 'keeper', input: 'second', sessionId });
    expect(second.status).toBe(201);
    expect((await h.tiller.result(second.body.turnId)).output).toBe('two');
    expect(removed).toEqual(['alice-1', 'alice-2']);
    // Each turn of the session records its sender as its starter.
    expect((await h.tiller.state(t1)).startedBy).toBe('alice');
    await sessionIdle(sessionId);
    await recordFixture(h.client, sessionId, 'session-owned');
  });

  test('a session started without a principal (CLI, library) refuses sends through the gateway', async () => {
    const sessionId = `unowned-${randomBytes(4).toString('hex')}`;
    started.push(sessionId);
    h.model.setScript(
      scriptByInput({
        hi: [{ content: 'hello' }],
        'mine now': [{ content: 'intruder' }],
        'hi again': [{ content: 'hello again' }],
      }),
    );
    const { turnId } = await h.tiller.send(sessionId, 'hi', { agent: 'keeper' });
    expect((await h.tiller.result(turnId)).output).toBe('hello');
    await sessionIdle(sessionId);
    const s = await h.tiller.sessionState(sessionId);
    expect(s.owner).toBeUndefined();

    const viaGateway = await call('POST', '/turns', T.bob, { agent: 'keeper', input: 'mine now', sessionId });
    expect(viaGateway.status).toBe(403);
    expect(viaGateway.body.error).toBe(
      `session ${sessionId} has no owner (it was started without a principal); bob may not send into it`,
    );
    // Its Temporal clients go on as before.
    const again = await h.tiller.send(sessionId, 'hi again', { agent: 'keeper' });
    expect((await h.tiller.result(again.turnId)).output).toBe('hello again');
    expect((await sessionIdle(sessionId)).turns).toHaveLength(2);
  });

  test('the library passes a principal: the first send makes it the owner, a different one is refused', async () => {
    const sessionId = `lib-owned-${randomBytes(4).toString('hex')}`;
    started.push(sessionId);
    h.model.setScript(scriptByInput({ 'hi dora': [{ content: 'ok' }], 'hi eve': [{ content: 'eve was here' }] }));
    const { turnId } = await h.tiller.send(sessionId, 'hi dora', { agent: 'keeper', principal: { name: 'dora' } });
    expect((await h.tiller.result(turnId)).output).toBe('ok');
    expect((await h.tiller.state(turnId)).startedBy).toBe('dora');
    expect((await sessionIdle(sessionId)).owner).toEqual({ name: 'dora' });
    await expect(
      h.tiller.send(sessionId, 'hi eve', { agent: 'keeper', principal: { name: 'eve', groups: ['dora'] } }),
    ).rejects.toThrow(`session ${sessionId} belongs to dora; eve may not send into it`);
  });
});

describe('the starter is recorded and may not approve its own call', () => {
  test('through the gateway: the starter gets 403 (audited), may still deny; another approver decides', async () => {
    h.model.setScript(scriptByInput({ 'remove it': [rmCall('s1', 'gw-self'), { content: 'done' }] }));
    const res = await call('POST', '/turns', T.alice, { agent: 'keeper', input: 'remove it' });
    expect(res.status).toBe(201);
    const turnId = res.body.turnId as string;
    started.push(turnId);
    const paused: TurnState = await waitForState(h.tiller, turnId, awaitingApproval);
    expect(paused.startedBy).toBe('alice');
    const gw = await call('GET', `/turns/${turnId}`, T.bob);
    expect(gw.body.startedBy).toBe('alice');

    const self = await call('POST', `/turns/${turnId}/decisions`, T.alice, { id: 's1', approved: true });
    expect(self.status).toBe(403);
    expect(self.body.error).toBe(
      'alice may not decide rm: alice started this turn, and the gate does not allow self-approval',
    );
    const audited = await h.tiller.state(turnId);
    expect(audited.status).toBe('awaiting_approval');
    expect(audited.events.filter((e) => e.type === 'DECISION_REJECTED')).toEqual([
      expect.objectContaining({ via: 'update', id: 's1', approver: 'alice' }),
    ]);

    const ok = await call('POST', `/turns/${turnId}/decisions`, T.carol, { id: 's1', approved: true });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ approved: true, approver: 'carol' });
    expect((await h.tiller.result(turnId)).output).toBe('done');
    expect(removed).toEqual(['gw-self']);
  });

  test('the starter may deny its own call', async () => {
    h.model.setScript(scriptByInput({ 'remove mine': [rmCall('d1', 'kept'), { content: 'kept it' }] }));
    const turnId = h.turnId('self-deny');
    await h.tiller.startTurn({ agent: 'keeper', input: 'remove mine', turnId, startedBy: 'sam' });
    await waitForState(h.tiller, turnId, awaitingApproval);
    const denied = await h.tiller.deny(turnId, 'd1', { approver: 'sam', reason: 'changed my mind' });
    expect(denied).toMatchObject({ approved: false, approver: 'sam' });
    expect((await h.tiller.result(turnId)).output).toBe('kept it');
    expect(removed).toEqual([]);
  });

  test("a sub-agent's turn inherits its parent's starter: the starter may not approve the child's call", async () => {
    h.model.setScript(
      scriptByInput({
        delegate: [
          { toolCalls: [{ id: 'h1', name: 'helper', arguments: { input: 'remove sub' } }] },
          { content: 'did it' },
        ],
        'remove sub': [rmCall('c1', 'sub'), { content: 'removed sub' }],
      }),
    );
    const parent = h.turnId('boss');
    await h.tiller.startTurn({ agent: 'boss', input: 'delegate', turnId: parent, startedBy: 'sam' });
    const child = await pollUntil(
      async () => (await h.tiller.pendingTree(parent).catch(() => []))[0]?.turnId,
      'the sub-agent turn waiting for a decision',
    );
    expect((await h.tiller.state(child)).startedBy).toBe('sam');
    await expect(h.tiller.approve(child, 'c1', { approver: 'sam' })).rejects.toThrow(
      /sam may not decide rm: sam started this turn/,
    );
    await h.tiller.approve(child, 'c1', { approver: 'tom' });
    expect((await h.tiller.result(parent)).output).toBe('did it');
    expect(removed).toEqual(['sub']);
  });

  test('library and signal: refused by default, recorded as DECISION_REJECTED; `allowSelfApproval` permits it', async () => {
    h.model.setScript(
      scriptByInput({
        strict: [rmCall('k1', 'strict'), { content: 'strict done' }],
        lenient: [rmCall('k2', 'lenient'), { content: 'lenient done' }],
      }),
    );
    const strict = h.turnId('self-strict');
    await h.tiller.startTurn({ agent: 'keeper', input: 'strict', turnId: strict, startedBy: 'sam' });
    await waitForState(h.tiller, strict, awaitingApproval);
    await expect(h.tiller.approve(strict, 'k1', { approver: 'sam' })).rejects.toThrow(
      /sam may not decide rm: sam started this turn/,
    );
    await h.tiller.signalDecision(strict, { id: 'k1', approved: true, approver: 'sam' });
    const rejected = await waitForState(
      h.tiller,
      strict,
      (s) => s.events.filter((e) => e.type === 'DECISION_REJECTED').length === 2,
    );
    expect(rejected.events.filter((e) => e.type === 'DECISION_REJECTED').map((e) => (e as any).via)).toEqual([
      'update',
      'signal',
    ]);
    expect(rejected.status).toBe('awaiting_approval');
    await h.tiller.approve(strict, 'k1', { approver: 'tom' });
    expect((await h.tiller.result(strict)).output).toBe('strict done');
    await recordFixture(h.client, strict, 'self-approval-refused');

    const lenient = h.turnId('self-lenient');
    await h.tiller.startTurn({ agent: 'selfie', input: 'lenient', turnId: lenient, startedBy: 'sam' });
    await waitForState(h.tiller, lenient, awaitingApproval);
    expect(await h.tiller.approve(lenient, 'k2', { approver: 'sam' })).toMatchObject({ approver: 'sam' });
    expect((await h.tiller.result(lenient)).output).toBe('lenient done');
    expect(removed).toEqual(['strict', 'lenient']);
  });
});
