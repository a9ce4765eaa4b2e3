/**
 * The HTTP gateway over real HTTP against the real dev server: identities (hashed tokens, JWT), the
 * state and inbox routes, the SSE stream (resume, type filter, redaction, read-only), decisions with
 * a verified approver, the signed webhook, limits and bad input, and the OpenAPI document.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { assistant } from '../../src/agents/assistant';
import { defineAgent } from '../../src/agents/define';
import type { TurnState } from '../../src/core/state';
import type { EventsRequest } from '../../src/core/reads';
import { TillerClient } from '../../src/client';
import { buildGateway, hashToken, signWebhook } from '../../src/gateway';
import { demoScript } from '../../src/testing/scripted-model';
import { createHarness, type Harness } from '../support/harness';
import { pollUntil } from '../support/wait';

const ledger = defineAgent({
  name: 'ledger',
  instructions: 'You keep the books.',
  tools: ['read_file', 'delete_file'],
  approvals: { delete_file: { approvers: ['group:finance'] } },
});

const token = () => randomBytes(24).toString('base64url');
const T = { alice: token(), bob: token(), carol: token(), sam: token() };
const JWT_SECRET = randomBytes(32).toString('hex');
const WEBHOOK_SECRET = randomBytes(24).toString('hex');

let h: Harness;
let worker: Worker;
let running: Promise<void>;
let app: FastifyInstance;
let base: string;
const started: string[] = [];

/** Counts the gateway's `state` queries, to show that polling costs no history. */
/** Counts the reads a stream polls with (the `events` query). */
class CountingClient extends TillerClient {
  polls = 0;
  override events(turnId: string, req?: EventsRequest) {
    this.polls++;
    return super.events(turnId, req);
  }
}
let counting: CountingClient;

beforeAll(async () => {
  h = await createHarness({ script: demoScript() });
  for (const f of ['notes.txt', 'ledger.txt', 'hook.txt', 'cancel.txt', 'unknown.txt', 'session.txt']) {
    fs.writeFileSync(path.join(h.workspace, f), `contents of ${f}\nsecond line\n`);
  }
  worker = await h.worker({ agents: [assistant, ledger] });
  running = worker.run();
  counting = new CountingClient(h.client, h.taskQueue);
  app = await buildGateway({
    tiller: counting,
    identities: {
      tokens: [
        {
          name: 'alice',
          groups: ['finance'],
          sha256: hashToken(T.alice),
          scopes: ['read', 'start', 'decide', 'cancel', 'args'],
        },
        { name: 'bob', sha256: hashToken(T.bob), scopes: ['read'] },
        // Starts the turns the others decide: a turn's starter may not approve its own calls.
        { name: 'sam', sha256: hashToken(T.sam), scopes: ['read', 'start'] },
        { name: 'carol', groups: ['ops'], sha256: hashToken(T.carol), scopes: ['read', 'decide', 'args'] },
      ],
      jwt: { secret: JWT_SECRET },
    },
    webhookSecret: WEBHOOK_SECRET,
    rateLimit: { max: 10_000, timeWindowMs: 60_000 },
    queryTimeoutMs: 5_000,
    stream: { minIntervalMs: 50, maxIntervalMs: 500 },
  });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
}, 120_000);

afterAll(async () => {
  await app?.close();
  // Leave nothing waiting on the shared server.
  await Promise.all(started.map((id) => h.tiller.cancel(id).catch(() => undefined)));
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await running;
  await h?.close();
}, 60_000);

// ---------------------------------------------------------------------------------------------
// small HTTP helpers

async function call(
  method: string,
  url: string,
  opts: { as?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; text: string; headers: Headers }> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.as) headers.authorization = `Bearer ${opts.as}`;
  let body: string | undefined = opts.raw;
  if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${base}${url}`, { method, headers, ...(body !== undefined && { body }) });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text, headers: res.headers };
}

async function startTurn(input: string, agent = 'assistant'): Promise<string> {
  const res = await call('POST', '/turns', { as: T.sam, body: { agent, input } });
  expect(res.status).toBe(201);
  started.push(res.body.turnId);
  return res.body.turnId as string;
}

/** Polls GET /turns/:id (the gateway's own state route) until `predicate` holds. */
async function until(turnId: string, predicate: (s: TurnState) => boolean, timeoutMs = 60_000): Promise<TurnState> {
  const deadline = Date.now() + timeoutMs;
  let last: { status: number; body: any } | undefined;
  while (Date.now() < deadline) {
    last = await call('GET', `/turns/${turnId}`, { as: T.alice });
    if (last.status === 200 && predicate(last.body)) return last.body as TurnState;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`turn ${turnId} did not reach the condition; last: ${JSON.stringify(last)}`);
}
const paused = (s: TurnState) => s.status === 'awaiting_approval';

interface Frame {
  id?: string;
  event: string;
  data: any;
}

/** A Server-Sent Events reader over fetch (headers allowed), with waits driven by the frames. */
async function stream(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const res = await fetch(`${base}${url}`, { headers, signal: controller.signal });
  const frames: Frame[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  const done = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let i;
        while ((i = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, i);
          buffer = buffer.slice(i + 2);
          const frame: Frame = { event: 'message', data: undefined };
          let data = '';
          for (const line of block.split('\n')) {
            if (line.startsWith(':') || !line) continue;
            const c = line.indexOf(':');
            const field = line.slice(0, c);
            const value = line.slice(c + 1).replace(/^ /, '');
            if (field === 'id') frame.id = value;
            else if (field === 'event') frame.event = value;
            else if (field === 'data') data += value;
          }
          if (!data) continue;
          frame.data = JSON.parse(data);
          frames.push(frame);
          wake?.();
        }
      }
    } catch {
      // aborted
    } finally {
      ended = true;
      wake?.();
    }
  })();
  return {
    status: res.status,
    headers: res.headers,
    frames,
    /** Waits until a frame satisfies `predicate` (or the stream ends); returns the frames so far. */
    async until(predicate: (f: Frame) => boolean, timeoutMs = 60_000): Promise<Frame[]> {
      const deadline = Date.now() + timeoutMs;
      while (!frames.some(predicate)) {
        if (ended) throw new Error(`stream ended without the frame; got ${JSON.stringify(frames)}`);
        if (Date.now() > deadline) throw new Error(`timed out; frames: ${JSON.stringify(frames)}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 1_000);
        });
      }
      return frames;
    },
    ended: () => done.then(() => frames),
    close() {
      controller.abort();
      return done;
    },
  };
}
const ofType = (type: string) => (f: Frame) => f.event === 'message' && f.data.type === type;

// ---------------------------------------------------------------------------------------------

describe('a turn through the gateway', () => {
  let turnId: string;
  let pending: TurnState['pendingApprovals'][number];

  test('start → state (the identity may read it)', async () => {
    turnId = await startTurn('Read notes.txt, then delete it.');
    expect(turnId).toMatch(/^turn-/);
    const state = await until(turnId, paused);
    pending = state.pendingApprovals[0]!;
    expect(pending).toMatchObject({ tool: 'delete_file', args: { path: 'notes.txt' } });
    expect(pending.preview).toContain('contents of notes.txt');
    expect(state.agent).toBe('assistant');
  });

  test('SSE: events with id = seq; a resume with Last-Event-ID gets only later ones', async () => {
    const s = await stream(`/turns/${turnId}/events`, { authorization: `Bearer ${T.alice}` });
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = await s.until(ofType('APPROVAL_REQUESTED'));
    await s.close();
    const events = frames.filter((f) => f.event === 'message');
    expect(events[0]!.data).toMatchObject({ seq: 1, type: 'AGENT_STARTED' });
    events.forEach((f) => expect(f.id).toBe(String(f.data.seq)));
    const seqs = events.map((f) => f.data.seq as number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);

    const from = seqs[1]!;
    const resumed = await stream(`/turns/${turnId}/events`, {
      authorization: `Bearer ${T.alice}`,
      'last-event-id': String(from),
    });
    const again = (await resumed.until(ofType('APPROVAL_REQUESTED'))).filter((f) => f.event === 'message');
    await resumed.close();
    expect(again[0]!.data.seq).toBe(from + 1);
    expect(again.every((f) => f.data.seq > from)).toBe(true);
  });

  test('SSE: types= filters by glob; access_token works on the SSE route only', async () => {
    const s = await stream(`/turns/${turnId}/events?types=TOOL_*,APPROVAL_*&access_token=${T.alice}`);
    expect(s.status).toBe(200);
    const events = (await s.until(ofType('APPROVAL_REQUESTED'))).filter((f) => f.event === 'message');
    await s.close();
    expect(events.length).toBeGreaterThan(1);
    expect(events.every((f) => /^(TOOL_|APPROVAL_)/.test(f.data.type))).toBe(true);
    expect(events.map((f) => f.data.type)).toContain('TOOL_ENDED');

    expect((await call('GET', `/turns/${turnId}?access_token=${T.alice}`)).status).toBe(401);
    expect((await call('GET', `/turns/${turnId}/events?types=TOOL_(`, { as: T.alice })).status).toBe(400);
    expect(
      (await call('GET', `/turns/${turnId}/events`, { as: T.alice, headers: { 'last-event-id': 'x' } })).status,
    ).toBe(400);
  });

  test('redaction: an identity without the args right sees no arguments, results or previews', async () => {
    const s = await stream(`/turns/${turnId}/events`, { authorization: `Bearer ${T.bob}` });
    const frames = await s.until(ofType('APPROVAL_REQUESTED'));
    await s.close();
    const requested = frames.find(ofType('APPROVAL_REQUESTED'))!.data;
    expect(requested.args).toBe('[redacted]');
    expect(requested.preview).toBe('[redacted]');
    expect(requested.tool).toBe('delete_file');
    expect(frames.find(ofType('TOOL_ENDED'))!.data.result).toBe('[redacted]');
    expect(JSON.stringify(frames)).not.toContain('contents of notes.txt');

    const state = await call('GET', `/turns/${turnId}`, { as: T.bob });
    expect(state.status).toBe(200);
    expect(state.body.pendingApprovals[0].args).toBe('[redacted]');
    expect(JSON.stringify(state.body)).not.toContain('contents of notes.txt');
    expect(JSON.stringify(state.body)).not.toContain('"notes.txt"');
  });

  test('the inbox lists the waiting call with what the model sent', async () => {
    const deadline = Date.now() + 30_000;
    let mine: any;
    while (!mine && Date.now() < deadline) {
      // Visibility is eventually consistent.
      const inbox = await call('GET', '/approvals', { as: T.alice });
      expect(inbox.status).toBe(200);
      mine = inbox.body.approvals.find((a: any) => a.turnId === turnId);
      if (!mine) await new Promise((r) => setTimeout(r, 200));
    }
    expect(mine).toMatchObject({
      turnId,
      agent: 'assistant',
      id: pending.id,
      tool: 'delete_file',
      args: { path: 'notes.txt' },
      argsDigest: pending.argsDigest,
      youMayDecide: true,
    });
    expect(mine.preview).toContain('contents of notes.txt');

    // The same inbox for an identity without the args (and decide) right.
    const inbox = await call('GET', '/approvals', { as: T.bob });
    const bobs = inbox.body.approvals.find((a: any) => a.turnId === turnId);
    expect(bobs).toMatchObject({ tool: 'delete_file', args: '[redacted]', preview: '[redacted]', youMayDecide: false });
  });

  test('polling for a live stream costs no history events', async () => {
    const historyLength = async () => (await h.client.workflow.getHandle(turnId).fetchHistory()).events?.length;
    const before = await historyLength();
    const s = await stream(`/turns/${turnId}/events`, { authorization: `Bearer ${T.bob}` });
    await s.until(ofType('APPROVAL_REQUESTED'));
    const polls = counting.polls;
    await pollUntil(() => counting.polls >= polls + 5 || undefined, 'five more polls of the stream', 10_000);
    await s.close();
    expect(await historyLength()).toBe(before);
  });

  test('open streams are capped; a client that disconnects mid-stream frees its slot', async () => {
    const capped = await buildGateway({
      tiller: h.tiller,
      identities: { tokens: [{ name: 'alice', sha256: hashToken(T.alice) }] },
      stream: { maxStreams: 1, maxIntervalMs: 200 },
    });
    const url = await capped.listen({ host: '127.0.0.1', port: 0 });
    const auth = { authorization: `Bearer ${T.alice}` };
    try {
      const first = new AbortController();
      const res = await fetch(`${url}/turns/${turnId}/events`, { headers: auth, signal: first.signal });
      expect(res.status).toBe(200);
      const second = await fetch(`${url}/turns/${turnId}/events`, { headers: auth });
      expect(second.status).toBe(429);
      expect(await second.json()).toEqual({ error: 'too many open event streams; try again later' });
      first.abort(); // disconnect mid-stream
      const deadline = Date.now() + 30_000;
      for (;;) {
        const again = new AbortController();
        const retry = await fetch(`${url}/turns/${turnId}/events`, { headers: auth, signal: again.signal });
        again.abort();
        if (retry.status === 200) break;
        expect(retry.status).toBe(429);
        if (Date.now() > deadline) throw new Error('the slot was never freed');
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      await capped.close();
    }
  });

  test('subscribers and unauthorised callers cannot alter the turn', async () => {
    const before = await call('GET', `/turns/${turnId}`, { as: T.alice });
    const decision = { id: pending.id, approved: true };
    expect((await call('POST', `/turns/${turnId}/events`, { as: T.alice, body: decision })).status).toBe(404);
    expect((await call('PUT', `/turns/${turnId}/events`, { as: T.alice, body: decision })).status).toBe(404);
    expect((await call('DELETE', `/turns/${turnId}`, { as: T.alice })).status).toBe(404);
    const anonymous = await call('POST', `/turns/${turnId}/decisions`, { body: decision });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toMatch(/bearer token/);
    expect((await call('POST', `/turns/${turnId}/decisions`, { as: 'not-a-token', body: decision })).status).toBe(401);
    // An access_token parameter is not accepted outside the SSE route.
    expect((await call('POST', `/turns/${turnId}/decisions?access_token=${T.alice}`, { body: decision })).status).toBe(
      401,
    );
    const readOnly = await call('POST', `/turns/${turnId}/decisions`, { as: T.bob, body: decision });
    expect(readOnly.status).toBe(403);
    expect(readOnly.body).toEqual({ error: 'bob may not decide' });
    expect((await call('POST', `/turns/${turnId}/cancel`, { as: T.bob })).status).toBe(403);
    expect((await call('POST', '/turns', { as: T.bob, body: { agent: 'assistant', input: 'x' } })).status).toBe(403);

    const after = await call('GET', `/turns/${turnId}`, { as: T.alice });
    expect(after.body.status).toBe('awaiting_approval');
    expect(after.body.eventCount).toBe(before.body.eventCount);
    expect(after.body.events).toEqual(before.body.events);
  });

  test('validator rejections are 4xx with the clear message, and write nothing', async () => {
    const before = await call('GET', `/turns/${turnId}`, { as: T.alice });
    const malformed = await call('POST', `/turns/${turnId}/decisions`, {
      as: T.alice,
      body: { id: pending.id, approved: 'yes' },
    });
    expect(malformed.status).toBe(422);
    expect(malformed.body.error).toBe('approved: approved must be true or false');
    const extra = await call('POST', `/turns/${turnId}/decisions`, {
      as: T.alice,
      body: { id: pending.id, approved: true, sneaky: 1 },
    });
    expect(extra.status).toBe(422);
    const unknown = await call('POST', `/turns/${turnId}/decisions`, {
      as: T.alice,
      body: { id: 'nope', approved: true },
    });
    expect(unknown.status).toBe(409);
    expect(unknown.body.error).toMatch(/^unknown tool call id nope; pending: /);
    const digest = await call('POST', `/turns/${turnId}/decisions`, {
      as: T.alice,
      body: { id: pending.id, approved: true, argsDigest: 'sha256:0000' },
    });
    expect(digest.status).toBe(409);
    expect(digest.body.error).toMatch(/does not match the pending call/);
    const after = await call('GET', `/turns/${turnId}`, { as: T.alice });
    expect(after.body.eventCount).toBe(before.body.eventCount);
  });

  test('a decision: the approver is the identity, never the body; the live stream sees it and ends', async () => {
    const live = await stream(`/turns/${turnId}/events?types=TOOL_*,TURN_*`, { authorization: `Bearer ${T.alice}` });
    await live.until(ofType('TOOL_ENDED')); // connected and caught up
    const res = await call('POST', `/turns/${turnId}/decisions`, {
      as: T.alice,
      body: {
        id: pending.id,
        approved: false,
        reason: 'keep it',
        approver: 'mallory',
        approverGroups: ['admins'],
        argsDigest: pending.argsDigest,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: pending.id,
      approved: false,
      reason: 'keep it',
      approver: 'alice',
      via: 'update',
    });

    const frames = await live.ended();
    expect(frames.find(ofType('TOOL_DENIED'))!.data.decision.approver).toBe('alice');
    expect(frames.find(ofType('TURN_COMPLETED'))).toBeDefined();
    const end = frames.at(-1)!;
    expect(end).toMatchObject({ event: 'end', data: { status: 'completed' } });

    const state = await until(turnId, (s) => s.status === 'completed');
    const callRecord = state.toolCalls.find((c) => c.id === pending.id)!;
    expect(callRecord.status).toBe('denied');
    expect(callRecord.decision).toMatchObject({ approved: false, approver: 'alice', reason: 'keep it' });
    expect(JSON.stringify(state)).not.toContain('mallory');

    const second = await call('POST', `/turns/${turnId}/decisions`, {
      as: T.alice,
      body: { id: pending.id, approved: true },
    });
    expect(second.status).toBe(409);
    expect(second.body.error).toMatch(/not pending|has ended/);

    // A resume after the end: nothing follows, and EventSource is told not to reconnect (204).
    const lastSeq = Number(frames.filter((f) => f.id).at(-1)!.id);
    const resumed = await call('GET', `/turns/${turnId}/events`, {
      as: T.alice,
      headers: { 'last-event-id': String(Math.max(lastSeq, state.eventCount)) },
    });
    expect(resumed.status).toBe(204);
    expect(fs.existsSync(path.join(h.workspace, 'notes.txt'))).toBe(true);
  });
});

test('approver rules: an identity outside the gate gets 403; one in its group decides', async () => {
  const turnId = await startTurn('Read ledger.txt, then delete it.', 'ledger');
  const state = await until(turnId, paused);
  const id = state.pendingApprovals[0]!.id;
  expect(state.pendingApprovals[0]!.approvers).toEqual(['group:finance']);
  const inbox = await call('GET', '/approvals?agent=ledger', { as: T.carol });
  expect(inbox.body.approvals.find((a: any) => a.turnId === turnId)?.youMayDecide ?? false).toBe(false);

  const before = (await call('GET', `/turns/${turnId}`, { as: T.alice })).body;
  const refused = await call('POST', `/turns/${turnId}/decisions`, { as: T.carol, body: { id, approved: true } });
  expect(refused.status).toBe(403);
  expect(refused.body.error).toBe('carol may not decide delete_file; allowed: group:finance');
  const after = (await call('GET', `/turns/${turnId}`, { as: T.alice })).body;
  expect(after.status).toBe('awaiting_approval');
  expect(after.eventCount).toBe(before.eventCount); // nothing written, not even an audit event

  const ok = await call('POST', `/turns/${turnId}/decisions`, { as: T.alice, body: { id, approved: true } });
  expect(ok.status).toBe(200);
  expect(ok.body).toMatchObject({ approved: true, approver: 'alice' });
  await until(turnId, (s) => s.status === 'completed');
  expect(fs.existsSync(path.join(h.workspace, 'ledger.txt'))).toBe(false);
});

test('unknown turns are 404 on every route', async () => {
  const missing = `missing-${randomBytes(4).toString('hex')}`;
  expect((await call('GET', `/turns/${missing}`, { as: T.alice })).status).toBe(404);
  expect((await call('GET', `/turns/${missing}/events`, { as: T.alice })).status).toBe(404);
  const decided = await call('POST', `/turns/${missing}/decisions`, { as: T.alice, body: { id: 'x', approved: true } });
  expect(decided.status).toBe(404);
  expect(decided.body).toEqual({ error: `turn ${missing} not found` });
  expect((await call('POST', `/turns/${missing}/cancel`, { as: T.alice })).status).toBe(404);
});

describe('the chat-ops webhook', () => {
  let turnId: string;
  let id: string;
  const now = () => Math.floor(Date.now() / 1000);
  const send = (body: string, ts: number | string, signature: string) =>
    call('POST', '/webhooks/decision', {
      raw: body,
      headers: { 'x-tiller-timestamp': String(ts), 'x-tiller-signature': signature },
    });

  beforeAll(async () => {
    turnId = await startTurn('Read hook.txt, then delete it.');
    id = (await until(turnId, paused)).pendingApprovals[0]!.id;
  });

  test('bad, tampered, old and unsigned requests are rejected and change nothing', async () => {
    const before = await call('GET', `/turns/${turnId}`, { as: T.alice });
    const body = JSON.stringify({ turnId, id, approved: true, approver: 'sam' });
    const ts = now();
    expect((await send(body, ts, signWebhook('wrong-secret-wrong-secret', ts, body))).status).toBe(401);
    const tampered = await send(body.replace('sam', 'eve'), ts, signWebhook(WEBHOOK_SECRET, ts, body));
    expect(tampered).toMatchObject({ status: 401, body: { error: 'bad signature' } });
    const old = now() - 6 * 60;
    const stale = await send(body, old, signWebhook(WEBHOOK_SECRET, old, body));
    expect(stale).toMatchObject({ status: 401, body: { error: 'timestamp outside the 5-minute window' } });
    expect((await send(body, ts, 'sha256=zz')).status).toBe(401);
    expect((await call('POST', '/webhooks/decision', { raw: body })).status).toBe(401);
    // Signed but not a decision: 422 / 400, still nothing written.
    const wrong = JSON.stringify({ turnId, id, approved: 'yes', approver: 'sam' });
    expect((await send(wrong, ts, signWebhook(WEBHOOK_SECRET, ts, wrong))).status).toBe(422);
    const notJson = '{"turnId":';
    expect((await send(notJson, ts, signWebhook(WEBHOOK_SECRET, ts, notJson))).status).toBe(400);
    const after = await call('GET', `/turns/${turnId}`, { as: T.alice });
    expect(after.body.status).toBe('awaiting_approval');
    expect(after.body.eventCount).toBe(before.body.eventCount);
  });

  test('a good signature decides as webhook:<approver>; the same request replayed is rejected', async () => {
    const body = JSON.stringify({ turnId, id, approved: false, reason: 'not from chat', approver: 'sam' });
    const ts = now();
    const signature = signWebhook(WEBHOOK_SECRET, ts, body);
    const ok = await send(body, ts, signature);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id, approved: false, approver: 'webhook:sam', reason: 'not from chat' });
    const replay = await send(body, ts, signature);
    expect(replay).toMatchObject({ status: 409, body: { error: 'replayed request: this signature was used' } });
    const state = await until(turnId, (s) => s.status === 'completed');
    expect(state.toolCalls.find((c) => c.id === id)!.decision!.approver).toBe('webhook:sam');
  });
});

test('JWT identities: sub and groups from a verified token; bad or expired ones are 401', async () => {
  const key = new TextEncoder().encode(JWT_SECRET);
  const jwt = await new SignJWT({ groups: ['finance'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('dana')
    .setExpirationTime('5m')
    .sign(key);
  const me = await call('GET', '/me', { as: jwt });
  expect(me.status).toBe(200);
  expect(me.body).toEqual({
    name: 'dana',
    groups: ['finance'],
    scopes: ['read', 'decide', 'args'],
    canSeeArgs: true,
    via: 'jwt',
  });
  const scoped = await new SignJWT({ scope: 'tiller:read' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('erin')
    .setExpirationTime('5m')
    .sign(key);
  expect((await call('GET', '/me', { as: scoped })).body).toMatchObject({ scopes: ['read'], canSeeArgs: false });
  expect((await call('POST', '/turns', { as: scoped, body: { agent: 'assistant', input: 'x' } })).status).toBe(403);

  const expired = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('dana')
    .setExpirationTime(Math.floor(Date.now() / 1000) - 3_600)
    .sign(key);
  expect(await call('GET', '/me', { as: expired })).toMatchObject({ status: 401, body: { error: 'token expired' } });
  const forged = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('dana')
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode('x'.repeat(32)));
  expect((await call('GET', '/me', { as: forged })).status).toBe(401);
  const noExp = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('dana').sign(key);
  expect((await call('GET', '/me', { as: noExp })).status).toBe(401);
});

test('cancel: requested once for a running turn, 409 after it ended', async () => {
  const turnId = await startTurn('Read cancel.txt, then delete it.');
  await until(turnId, paused);
  const res = await call('POST', `/turns/${turnId}/cancel`, { as: T.alice });
  expect(res).toMatchObject({ status: 202, body: { turnId, cancelRequested: true } });
  await until(turnId, (s) => s.status === 'cancelled');
  expect((await call('POST', `/turns/${turnId}/cancel`, { as: T.alice })).status).toBe(409);
});

test('sessions: POST /turns with a sessionId runs the session turn', async () => {
  const sessionId = `gw-session-${randomBytes(4).toString('hex')}`;
  started.push(sessionId);
  const res = await call('POST', '/turns', {
    as: T.alice,
    body: { agent: 'assistant', input: 'Read session.txt, then delete it.', sessionId },
  });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ sessionId, turnId: expect.stringContaining(sessionId) });
  const state = await until(res.body.turnId, paused);
  expect(state.sessionId).toBe(sessionId);
  const busy = await call('POST', '/turns', { as: T.alice, body: { agent: 'assistant', input: 'again', sessionId } });
  expect(busy.status).toBe(409);
  expect(busy.body.error).toMatch(/still running turn/);
});

test('sessions of inline turns: the turn id (URL-encoded) reads, lists in the inbox and is decided', async () => {
  const sessionId = `gw-inline-${randomBytes(4).toString('hex')}`;
  started.push(sessionId);
  fs.writeFileSync(path.join(h.workspace, 'inline.txt'), 'inline\n');
  const res = await call('POST', '/turns', {
    as: T.sam,
    body: { agent: 'assistant', input: 'Read inline.txt, then delete it.', sessionId, inlineTurns: true },
  });
  expect(res.status).toBe(201);
  const turnId = `${sessionId}#turn-1`;
  expect(res.body).toEqual({ sessionId, turnId });
  const at = `/turns/${encodeURIComponent(turnId)}`;
  const state = await until(encodeURIComponent(turnId), paused);
  expect(state).toMatchObject({ turnId, sessionId });
  const id = state.pendingApprovals[0]!.id;
  const inbox = await pollUntil(async () => {
    const listed = await call('GET', '/approvals', { as: T.alice });
    return listed.body.approvals.find((a: any) => a.turnId === turnId);
  }, 'the inline turn in the inbox');
  expect(inbox).toMatchObject({ id, sessionId, youMayDecide: true });
  // sam started the session, so its turns are his (startedBy): alice decides.
  expect(state.startedBy).toBe('sam');
  const ok = await call('POST', `${at}/decisions`, { as: T.alice, body: { id, approved: true } });
  expect(ok.status).toBe(200);
  expect(ok.body).toMatchObject({ id, approved: true, approver: 'alice' });
  await until(encodeURIComponent(turnId), (s) => s.status === 'completed');
  expect(fs.existsSync(path.join(h.workspace, 'inline.txt'))).toBe(false);
});

test('bad input: a burst of bad requests gets defined JSON errors, then a good one still works', async () => {
  const turns = `/turns`;
  const results = await Promise.all([
    call('POST', turns, { as: T.alice, raw: '{"agent": ' }), // invalid JSON
    call('POST', turns, { as: T.alice, raw: JSON.stringify({ agent: 'a', input: 'x'.repeat(70 * 1024) }) }),
    call('POST', turns, { as: T.alice, raw: 'agent=a', headers: { 'content-type': 'text/plain' } }),
    call('POST', turns, { as: T.alice, body: { agent: '', input: 'x' } }),
    call('POST', turns, { as: T.alice, body: [1, 2] }),
    call('GET', '/approvals?limit=-1', { as: T.alice }),
    call('GET', '/nowhere', { as: T.alice }),
    call('POST', turns, { as: 'x'.repeat(10_000) }),
  ]);
  expect(results.map((r) => r.status)).toEqual([400, 413, 415, 422, 422, 400, 404, 401]);
  for (const r of results) {
    expect(Object.keys(r.body)).toEqual(['error']);
    expect(r.text).not.toMatch(/\n\s+at /);
  }
  expect((await call('GET', '/healthz')).status).toBe(200);
  expect((await call('GET', '/me', { as: T.alice })).body.name).toBe('alice');
});

test('rate limit: over the limit gets 429 with a JSON error', async () => {
  const limited = await buildGateway({
    tiller: h.tiller,
    identities: { tokens: [{ name: 'alice', sha256: hashToken(T.alice) }] },
    rateLimit: { max: 3, timeWindowMs: 60_000 },
  });
  const url = await limited.listen({ host: '127.0.0.1', port: 0 });
  try {
    const statuses: number[] = [];
    let last: any;
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${url}/me`, { headers: { authorization: `Bearer ${T.alice}` } });
      statuses.push(res.status);
      last = await res.json();
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(last.error).toMatch(/^rate limit exceeded/);
    // Unauthenticated guessing is limited as well.
    expect((await fetch(`${url}/me`)).status).toBe(429);
  } finally {
    await limited.close();
  }
});

test('/openapi.json parses and lists the routes with schemas from zod', async () => {
  const res = await call('GET', '/openapi.json');
  expect(res.status).toBe(200);
  const doc = res.body;
  expect(doc.openapi).toBe('3.1.0');
  expect(Object.keys(doc.paths)).toEqual(
    expect.arrayContaining([
      '/turns',
      '/turns/{id}',
      '/turns/{id}/events',
      '/turns/{id}/decisions',
      '/turns/{id}/cancel',
      '/approvals',
      '/webhooks/decision',
    ]),
  );
  expect(doc.paths['/turns/{id}/decisions'].post.requestBody.content['application/json'].schema).toEqual({
    $ref: '#/components/schemas/DecisionRequest',
  });
  const decision = doc.components.schemas.DecisionRequest;
  expect(decision.required).toEqual(expect.arrayContaining(['id', 'approved']));
  expect(decision.properties.scope.enum).toEqual(['once', 'turn', 'session']);
  expect(decision.additionalProperties).toBe(false);
  expect(doc.components.schemas.StartTurn.required).toEqual(['agent', 'input']);
  expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
});
