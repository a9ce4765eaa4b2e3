/**
 * Payload encryption: a canary in the user input and in a tool result is absent from the raw history
 * (and from search attributes), present again after decoding through the codec server; keys rotate.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { z } from 'zod';
import { createHarness, type Harness } from '../support/harness';
import { TillerClient } from '../../src/client';
import { AesGcmCodec, keysFromEnv } from '../../src/codec/encryption';
import { buildCodecServer } from '../../src/codec/server';
import { defineAgent } from '../../src/agents/define';
import { defineTool } from '../../src/tools/define';
import { pollUntil } from '../support/wait';

const k1 = { id: 'k1', key: randomBytes(32) };
const k2 = { id: 'k2', key: randomBytes(32) };
const CANARY_INPUT = `canary-input-${randomBytes(6).toString('hex')}`;
const CANARY_TOOL = `canary-tool-${randomBytes(6).toString('hex')}`;

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

const secret = defineTool({ name: 'secret', description: 'x', input: z.object({}), execute: () => CANARY_TOOL });
const agent = defineAgent({ name: 'vault', instructions: 'x', tools: ['secret'] });

/** Every string and byte array in a decoded history, as text, for scanning. */
function texts(value: unknown, out: string[] = []): string[] {
  if (value instanceof Uint8Array) out.push(Buffer.from(value).toString('latin1'));
  else if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => texts(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => texts(v, out));
  return out;
}

async function runTurn(encrypted: boolean): Promise<string> {
  const codec = new AesGcmCodec([k2, k1]);
  const dataConverter = encrypted ? { payloadCodecs: [codec] } : undefined;
  const client = new Client({ connection: h.client.connection, ...(dataConverter && { dataConverter }) });
  const tiller = new TillerClient(client, h.taskQueue);
  h.model.setScript([{ toolCalls: [{ id: 's1', name: 'secret', arguments: {} }] }, { content: 'stored' }]);
  const turnId = h.turnId(encrypted ? 'encrypted' : 'plain');
  // The worker requires encryption, as `tiller worker` does when keys are set: every payload it reads
  // (inputs, activity results, queries' arguments…) must be encrypted for the turn to complete.
  const workerConverter = encrypted
    ? { payloadCodecs: [new AesGcmCodec([k2, k1], { requireEncryption: true })] }
    : undefined;
  await (
    await h.worker({ agents: [agent], tools: [secret], ...(workerConverter && { dataConverter: workerConverter }) })
  ).runUntil(async () => {
    await tiller.startTurn({ agent: 'vault', input: `remember ${CANARY_INPUT}`, turnId });
    const result = await tiller.result(turnId);
    expect(result.toolCalls[0]?.result).toBe(CANARY_TOOL); // the codec client reads it back
  });
  // The model (outside Temporal) saw both in clear: encryption is about what Temporal stores.
  expect(JSON.stringify(h.model.requests.at(-1)!.body)).toContain(CANARY_TOOL);
  return turnId;
}

async function rawScan(turnId: string): Promise<string> {
  const raw = new Client({ connection: h.client.connection }); // no codec: what the server stores
  const history = await raw.workflow.getHandle(turnId).fetchHistory();
  const description = await raw.workflow.getHandle(turnId).describe();
  return [...texts(history), ...texts(description.raw.workflowExecutionInfo?.searchAttributes)].join('\n');
}

test('without encryption the canaries are in the raw history (the scan can see them)', async () => {
  const scanned = await rawScan(await runTurn(false));
  expect(scanned).toContain(CANARY_INPUT);
  expect(scanned).toContain(CANARY_TOOL);
});

test('with encryption they are absent from the raw history, the CLI export and search attributes', async () => {
  const turnId = await runTurn(true);
  const scanned = await rawScan(turnId);
  expect(scanned).not.toContain(CANARY_INPUT);
  expect(scanned).not.toContain(CANARY_TOOL);
  const exported = execFileSync(
    process.env.TILLER_TEST_TEMPORAL_CLI!,
    ['workflow', 'show', '--workflow-id', turnId, '--address', h.address, '-o', 'json'],
    { encoding: 'utf8' },
  );
  expect(exported).not.toContain(CANARY_INPUT);
  expect(exported).not.toContain(CANARY_TOOL);
  expect(Buffer.from(exported).toString('latin1')).not.toContain(Buffer.from(CANARY_INPUT).toString('base64'));

  // The codec server turns the stored payload back into the input, for holders of the token only.
  const app = await buildCodecServer({
    codec: new AesGcmCodec([k2, k1]),
    token: 'codec-token',
    uiOrigin: 'http://ui.example',
  });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const inject = async (o: { method: string; url: string; payload?: unknown; headers?: Record<string, string> }) => {
    const res = await fetch(base + o.url, {
      method: o.method,
      headers: { ...(o.payload !== undefined && { 'content-type': 'application/json' }), ...o.headers },
      ...(o.payload !== undefined && { body: JSON.stringify(o.payload) }),
    });
    const body = await res.text();
    return {
      statusCode: res.status,
      body,
      json: () => JSON.parse(body),
      headers: Object.fromEntries(res.headers.entries()) as Record<string, string | undefined>,
    };
  };
  try {
    const raw = new Client({ connection: h.client.connection });
    const history = await raw.workflow.getHandle(turnId).fetchHistory();
    const input = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]! as Payload;
    const body = {
      payloads: [
        {
          metadata: Object.fromEntries(
            Object.entries(input.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v!).toString('base64')]),
          ),
          data: Buffer.from(input.data!).toString('base64'),
        },
      ],
    };
    const denied = await inject({ method: 'POST', url: '/codec/decode', payload: body });
    expect(denied.statusCode).toBe(401);
    const decoded = await inject({
      method: 'POST',
      url: '/codec/decode',
      payload: body,
      headers: { authorization: 'Bearer codec-token' },
    });
    expect(decoded.statusCode).toBe(200);
    const data = Buffer.from(decoded.json().payloads[0].data, 'base64').toString();
    expect(data).toContain(CANARY_INPUT);
    const preflight = (origin: string) =>
      inject({
        method: 'OPTIONS',
        url: '/codec/decode',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
    expect((await preflight('http://ui.example')).headers['access-control-allow-origin']).toBe('http://ui.example');
    expect((await preflight('http://evil.example')).headers['access-control-allow-origin']).toBeUndefined();
    const garbage = await inject({
      method: 'POST',
      url: '/codec/decode',
      payload: { nope: 1 },
      headers: { authorization: 'Bearer codec-token' },
    });
    expect(garbage.statusCode).toBe(400);
    expect(garbage.body).not.toMatch(/at .*\.ts:\d+/);
  } finally {
    await app.close();
  }
});

test('key rotation: the newest key encodes, older keys still decode, unknown keys fail clearly', async () => {
  const old = new AesGcmCodec([k1]);
  const rotated = new AesGcmCodec([k2, k1]);
  const payload: Payload = { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('"hello"') };
  const [byOld] = await old.encode([payload]);
  const [back] = await rotated.decode([byOld!]);
  expect(Buffer.from(back!.data!).toString()).toBe('"hello"');
  const [byNew] = await rotated.encode([payload]);
  expect(Buffer.from(byNew!.metadata!['encryption-key-id']!).toString()).toBe('k2');
  await expect(old.decode([byNew!])).rejects.toThrow(/unknown key id k2/);
  const tampered = { ...byNew!, data: Buffer.from(byNew!.data!).fill(0, 20, 21) };
  await expect(rotated.decode([tampered])).rejects.toThrow();
  expect(
    keysFromEnv({ TILLER_ENCRYPTION_KEYS: `k2:${k2.key.toString('base64')},k1:${k1.key.toString('base64')}` }).map(
      (k) => k.id,
    ),
  ).toEqual(['k2', 'k1']);
  expect(() => keysFromEnv({ TILLER_ENCRYPTION_KEYS: 'k:c2hvcnQ=' })).toThrow(/expected 32/);
});

test('a worker that requires encryption refuses a plaintext decision (update and signal) from a client without the key', async () => {
  const required = { payloadCodecs: [new AesGcmCodec([k1], { requireEncryption: true })] };
  const keyed = new TillerClient(
    new Client({ connection: h.client.connection, dataConverter: { payloadCodecs: [new AesGcmCodec([k1])] } }),
    h.taskQueue,
  );
  const keyless = new TillerClient(new Client({ connection: h.client.connection }), h.taskQueue);
  const gated = defineAgent({ name: 'gated-vault', instructions: 'x', tools: ['secret'], approvals: { secret: true } });
  h.model.setScript([{ toolCalls: [{ id: 'v1', name: 'secret', arguments: {} }] }, { content: 'done' }]);
  const turnId = h.turnId('required');
  await (
    await h.worker({ agents: [gated], tools: [secret], dataConverter: required })
  ).runUntil(async () => {
    await keyed.startTurn({ agent: 'gated-vault', input: 'go', turnId });
    await pollUntil(
      async () => (await keyed.state(turnId).catch(() => undefined))?.status === 'awaiting_approval' || undefined,
      'the turn awaiting approval',
    );
    await expect(keyless.approve(turnId, 'v1')).rejects.toThrow(
      /not encrypted; this worker requires encrypted payloads/,
    );
    await keyless.signalDecision(turnId, { id: 'v1', approved: true });
    const s = await pollUntil(async () => {
      const state = await keyed.state(turnId);
      return state.events.some((e) => e.type === 'DECISION_REJECTED') ? state : undefined;
    }, 'the unencrypted decision recorded as rejected');
    expect(s.events.find((e) => e.type === 'DECISION_REJECTED')).toMatchObject({
      via: 'signal',
      reason: expect.stringContaining('requires encrypted payloads'),
    });
    expect(s.status).toBe('awaiting_approval');
    await keyed.approve(turnId, 'v1');
    expect((await keyed.result(turnId)).status).toBe('completed');
  });
});
