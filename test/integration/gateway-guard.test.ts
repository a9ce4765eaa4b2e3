/**
 * The gateway's rights under hostile use (issue 12, weak spots): a token without `scopes` may only
 * read; edited arguments need the `args` right; one caller cannot take every event stream; and a
 * caller without `args` sees no content at all — arguments, results, model text (live or final),
 * errors and outputs — only the turn's structure.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { defineAgent } from '../../src/agents/define';
import { buildGateway, hashToken } from '../../src/gateway';
import { createHarness, pausedDeleteTurn, scriptByInput, type Harness } from '../support/harness';
import { openSse } from '../support/sse';

const reader = defineAgent({
  name: 'reader',
  instructions: 'Read.',
  tools: ['read_file', 'delete_file'],
  approvals: { delete_file: true },
});

const token = () => randomBytes(24).toString('base64url');
const T = { alice: token(), bob: token(), dan: token(), nemo: token() };

let h: Harness;
let worker: Worker;
let running: Promise<void>;
let app: FastifyInstance;
let base: string;
const started: string[] = [];

beforeAll(async () => {
  h = await createHarness({ chunkSize: 4 });
  worker = await h.worker({ agents: [reader] });
  running = worker.run();
  app = await buildGateway({
    tiller: h.tiller,
    identities: {
      tokens: [
        { name: 'alice', sha256: hashToken(T.alice), scopes: ['read', 'start', 'decide', 'args'] },
        { name: 'bob', sha256: hashToken(T.bob), scopes: ['read'] },
        { name: 'dan', sha256: hashToken(T.dan), scopes: ['read', 'decide'] },
        { name: 'nemo', sha256: hashToken(T.nemo) },
      ],
    },
    rateLimit: false,
    queryTimeoutMs: 5_000,
    stream: { minIntervalMs: 50, maxIntervalMs: 300 },
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

async function call(method: string, url: string, as: string, body?: unknown, at = base) {
  const res = await fetch(`${at}${url}`, {
    method,
    headers: { authorization: `Bearer ${as}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const pausedTurn = (label: string, file: string) => pausedDeleteTurn(h, 'reader', label, file, started);

test('a token configured without scopes may only read', async () => {
  const me = await call('GET', '/me', T.nemo);
  expect(me.status).toBe(200);
  expect(me.body).toMatchObject({ name: 'nemo', scopes: ['read'], canSeeArgs: false });
  const start = await call('POST', '/turns', T.nemo, { agent: 'reader', input: 'x' });
  expect(start).toMatchObject({ status: 403, body: { error: 'nemo may not start' } });
  expect((await call('POST', '/codec/decode', T.nemo, { payloads: [] })).status).toBe(403);
  expect((await call('POST', '/turns/x/decisions', T.nemo, { id: 'x', approved: true })).status).toBe(403);
  expect((await call('POST', '/turns/x/cancel', T.nemo)).status).toBe(403);
});

test('a decision with edited arguments needs the args right (403, nothing written)', async () => {
  const turnId = await pausedTurn('edit-no-args', 'edit.txt');
  const before = await h.tiller.state(turnId);
  const edited = await call('POST', `/turns/${turnId}/decisions`, T.dan, {
    id: 'del',
    approved: true,
    args: { path: 'something-else.txt' },
  });
  expect(edited.status).toBe(403);
  expect(edited.body.error).toBe('dan may not edit arguments: that needs the args right');
  const after = await h.tiller.state(turnId);
  expect(after.status).toBe('awaiting_approval');
  expect(after.eventCount).toBe(before.eventCount);
  // The same identity may decide without edits.
  const plain = await call('POST', `/turns/${turnId}/decisions`, T.dan, { id: 'del', approved: false });
  expect(plain).toMatchObject({ status: 200, body: { approved: false, approver: 'dan' } });
  await h.tiller.result(turnId);
  expect(fs.existsSync(path.join(h.workspace, 'edit.txt'))).toBe(true);
});

test('event streams are capped per caller too: one caller cannot take every slot', async () => {
  const turnId = await pausedTurn('streams', 'streams.txt');
  const capped = await buildGateway({
    tiller: h.tiller,
    identities: {
      tokens: [
        { name: 'alice', sha256: hashToken(T.alice), scopes: ['read'] },
        { name: 'bob', sha256: hashToken(T.bob), scopes: ['read'] },
      ],
    },
    rateLimit: false,
    stream: { maxStreams: 3, maxStreamsPerCaller: 1, maxIntervalMs: 200 },
  });
  const url = await capped.listen({ host: '127.0.0.1', port: 0 });
  const open: AbortController[] = [];
  const sse = async (as: string) => {
    const ac = new AbortController();
    open.push(ac);
    const res = await fetch(`${url}/turns/${turnId}/events`, {
      headers: { authorization: `Bearer ${as}` },
      signal: ac.signal,
    });
    return { status: res.status, body: res.status === 200 ? undefined : await res.json() };
  };
  try {
    expect((await sse(T.alice)).status).toBe(200);
    const second = await sse(T.alice);
    expect(second).toEqual({
      status: 429,
      body: { error: 'alice has 1 open event streams, the most one caller may have; close one first' },
    });
    expect((await sse(T.bob)).status).toBe(200);
  } finally {
    open.forEach((ac) => ac.abort());
    await capped.close();
  }
});

describe('redaction is by right over content', () => {
  test('without the args right: no arguments, results, model text (live or final), errors or outputs', async () => {
    fs.writeFileSync(path.join(h.workspace, 'secret.txt'), 'CANARY-FILE says hello');
    h.model.setScript(
      scriptByInput({
        'what does secret.txt say?': [
          {
            delayMs: 1_500, // both streams are open before the model starts typing
            chunkDelayMs: 60,
            content: 'Let me look at CANARY-TEXT first.',
            toolCalls: [
              { id: 'ok', name: 'read_file', arguments: { path: 'secret.txt' } },
              { id: 'bad', name: 'read_file', arguments: { path: 'missing-CANARY-ERR.txt' } },
            ],
          },
          { content: 'The file says CANARY-FILE.' },
        ],
      }),
    );
    const turnId = h.turnId('content');
    started.push(turnId);
    await h.tiller.startTurn({ agent: 'reader', input: 'what does secret.txt say?', turnId });
    const [bob, alice] = await Promise.all([
      openSse(`${base}/turns/${turnId}/events`, { authorization: `Bearer ${T.bob}` }),
      openSse(`${base}/turns/${turnId}/events`, { authorization: `Bearer ${T.alice}` }),
    ]);
    expect([bob.status, alice.status]).toEqual([200, 200]);
    await Promise.all([bob.ended, alice.ended]);

    // The canaries are there for someone with the right (live text included) …
    const seen = JSON.stringify(alice.frames);
    expect(alice.frames.some((f) => f.event === 'delta')).toBe(true);
    for (const canary of ['CANARY-TEXT', 'CANARY-FILE', 'CANARY-ERR']) expect(seen).toContain(canary);

    // … and nowhere for someone without it: not in events, not as live text, not in the state.
    expect(JSON.stringify(bob.frames)).not.toContain('CANARY');
    expect(bob.frames.some((f) => f.event === 'delta' || f.event === 'discard')).toBe(false);
    const events = bob.frames.filter((f) => f.event === 'message').map((f) => f.data);
    expect(events.find((e) => e.type === 'MODEL_CALLED')).toMatchObject({
      text: '[redacted]',
      toolCalls: [
        { id: 'ok', name: 'read_file', args: '[redacted]' },
        { id: 'bad', name: 'read_file', args: '[redacted]' },
      ],
    });
    expect(events.find((e) => e.type === 'TOOL_FAILED')).toMatchObject({ tool: 'read_file', error: '[redacted]' });
    expect(events.find((e) => e.type === 'TURN_COMPLETED')).toMatchObject({ output: '[redacted]' });
    const state = await call('GET', `/turns/${turnId}`, T.bob);
    expect(state.status).toBe(200);
    expect(JSON.stringify(state.body)).not.toContain('CANARY');
    expect(state.body).toMatchObject({ status: 'completed', output: '[redacted]', agent: 'reader' });
    expect(state.body.toolCalls).toEqual([
      expect.objectContaining({ id: 'ok', name: 'read_file', status: 'succeeded', result: '[redacted]' }),
      expect.objectContaining({ id: 'bad', name: 'read_file', status: 'failed', error: '[redacted]' }),
    ]);
    expect(state.body.usage.modelCalls).toBe(2);
  });
});
