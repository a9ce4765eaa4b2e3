/**
 * The gateway's codec endpoint (the Temporal UI's codec server protocol, behind the gateway's
 * identities and the `codec` right, CORS for the UI origin) and its answer when no worker polls a
 * turn's task queue (503 at once, with what visibility knows).
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { TillerClient } from '../../src/client';
import { AesGcmCodec } from '../../src/codec/encryption';
import { buildGateway, hashToken } from '../../src/gateway';
import { defineTool } from '../../src/tools/define';
import { createHarness, type Harness } from '../support/harness';

const CANARY_INPUT = `canary-input-${randomBytes(6).toString('hex')}`;
const CANARY_TOOL = `canary-tool-${randomBytes(6).toString('hex')}`;
const UI = 'http://ui.example';
const T = { ops: randomBytes(24).toString('base64url'), reader: randomBytes(24).toString('base64url') };

const secret = defineTool({ name: 'secret', description: 'x', input: z.object({}), execute: () => CANARY_TOOL });
const vault = defineAgent({ name: 'vault', instructions: 'x', tools: ['secret'] });
const codec = new AesGcmCodec([{ id: 'k1', key: randomBytes(32) }]);

let h: Harness;
let tiller: TillerClient;
const apps: FastifyInstance[] = [];

async function gateway(opts: { codec?: boolean; queryTimeoutMs?: number } = {}) {
  const app = await buildGateway({
    tiller,
    identities: {
      tokens: [
        { name: 'ops', sha256: hashToken(T.ops), scopes: ['read', 'decide', 'codec'] },
        { name: 'reader', sha256: hashToken(T.reader), scopes: ['read'] },
      ],
    },
    uiOrigin: UI,
    rateLimit: false,
    queryTimeoutMs: opts.queryTimeoutMs ?? 5_000,
    ...(opts.codec !== false && { codec }),
  });
  apps.push(app);
  return app.listen({ host: '127.0.0.1', port: 0 });
}

beforeAll(async () => {
  h = await createHarness();
  tiller = new TillerClient(
    new Client({ connection: h.client.connection, dataConverter: { payloadCodecs: [codec] } }),
    h.taskQueue,
  );
});
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await h.close();
});

const toJson = (p: Payload) => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v!).toString('base64')]),
  ),
  data: Buffer.from(p.data!).toString('base64'),
});

async function post(base: string, url: string, body: unknown, token?: string, headers: Record<string, string> = {}) {
  const res = await fetch(base + url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token && { authorization: `Bearer ${token}` }),
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as any };
}

test('the UI decodes an encrypted turn through the gateway, with the codec right only', async () => {
  h.model.setScript([{ toolCalls: [{ id: 's1', name: 'secret', arguments: {} }] }, { content: 'stored' }]);
  const turnId = h.turnId('codec');
  await (
    await h.worker({ agents: [vault], tools: [secret], dataConverter: { payloadCodecs: [codec] } })
  ).runUntil(async () => {
    await tiller.startTurn({ agent: 'vault', input: `remember ${CANARY_INPUT}`, turnId });
    await tiller.result(turnId);
  });
  const base = await gateway();

  // What the server stores: neither canary, nowhere (history, search attributes).
  const raw = new Client({ connection: h.client.connection });
  const history = await raw.workflow.getHandle(turnId).fetchHistory();
  const description = await raw.workflow.getHandle(turnId).describe();
  const stored = JSON.stringify([history, description.raw.workflowExecutionInfo?.searchAttributes]);
  expect(stored).not.toContain(CANARY_INPUT);
  expect(stored).not.toContain(CANARY_TOOL);

  const input = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]! as Payload;
  const toolResult = history.events!.flatMap((e) => {
    const c = e.activityTaskCompletedEventAttributes;
    const p = c?.result?.payloads?.[0] as Payload | undefined;
    return p ? [p] : [];
  });
  const body = { payloads: [input, ...toolResult].map(toJson) };

  expect((await post(base, '/codec/decode', body)).status).toBe(401);
  const forbidden = await post(base, '/codec/decode', body, T.reader);
  expect(forbidden.status).toBe(403);
  expect(forbidden.json.error).toMatch(/reader may not codec/);

  const decoded = await post(base, '/codec/decode', body, T.ops, { 'x-namespace': 'default', origin: UI });
  expect(decoded.status).toBe(200);
  expect(decoded.headers.get('access-control-allow-origin')).toBe(UI);
  expect(decoded.headers.get('access-control-allow-credentials')).toBe('true');
  const text = decoded.json.payloads.map((p: { data: string }) => Buffer.from(p.data, 'base64').toString()).join('\n');
  expect(text).toContain(CANARY_INPUT);
  expect(text).toContain(CANARY_TOOL);

  // encode → decode round-trips; the encoded form does not show the text.
  const plain = {
    payloads: [toJson({ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('"hi"') })],
  };
  const encoded = await post(base, '/codec/encode', plain, T.ops);
  expect(Buffer.from(encoded.json.payloads[0].data, 'base64').toString()).not.toContain('hi');
  const back = await post(base, '/codec/decode', encoded.json, T.ops);
  expect(back.json).toEqual(plain);
  expect((await post(base, '/codec/decode', { nope: 1 }, T.ops)).status).toBe(400);

  // The UI's preflight carries no token; only the configured origin is granted.
  const preflight = (origin: string) =>
    fetch(`${base}/codec/decode`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,x-namespace',
      },
    });
  const allowed = await preflight(UI);
  expect(allowed.status).toBeLessThan(300);
  expect(allowed.headers.get('access-control-allow-origin')).toBe(UI);
  expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-namespace');
  expect((await preflight('http://evil.example')).headers.get('access-control-allow-origin')).toBeNull();
});

test('without encryption keys the codec routes say so', async () => {
  const base = await gateway({ codec: false });
  const res = await post(base, '/codec/decode', { payloads: [] }, T.ops);
  expect(res.status).toBe(404);
  expect(res.json.error).toMatch(/encryption is not configured/);
});

test('no worker: state and decisions answer 503 at once, naming the task queue, with what visibility knows', async () => {
  const queue = `${h.taskQueue}-idle`;
  const idle = new TillerClient(tiller.temporal, queue);
  const turnId = h.turnId('no-worker');
  await idle.startTurn({ agent: 'vault', input: 'hello', turnId });
  // A query would wait out this deadline; the gateway must not.
  const base = await gateway({ queryTimeoutMs: 30_000 });
  const auth = { authorization: `Bearer ${T.ops}` };

  const t0 = Date.now();
  const res = await fetch(`${base}/turns/${turnId}`, { headers: auth });
  const elapsed = Date.now() - t0;
  expect(res.status).toBe(503);
  const body = (await res.json()) as { error: string; turn: Record<string, unknown> };
  expect(body.error).toBe(`no worker is polling task queue ${queue}: start one with \`npx tiller worker\``);
  expect(body.turn).toMatchObject({ workflowStatus: 'running', taskQueue: queue, pendingTools: [] });
  expect(elapsed).toBeLessThan(10_000);

  const decision = await post(base, `/turns/${turnId}/decisions`, { id: 'x', approved: true }, T.ops);
  expect(decision.status).toBe(503);
  expect(decision.json.error).toMatch(/no worker is polling task queue/);
  const events = await fetch(`${base}/turns/${turnId}/events`, { headers: auth });
  expect(events.status).toBe(503);

  // A worker arrives: the same request succeeds.
  h.model.setScript([{ content: 'hi' }]);
  await (
    await h.worker({ agents: [vault], tools: [secret], taskQueue: queue, dataConverter: { payloadCodecs: [codec] } })
  ).runUntil(async () => {
    await idle.result(turnId);
    const ok = await fetch(`${base}/turns/${turnId}`, { headers: auth });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { status: string }).status).toBe('completed');
  });
});
