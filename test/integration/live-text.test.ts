/**
 * The model's text as it streams: followers (the client's `watchLive`, the gateway's SSE stream)
 * see it while the model types, without a history event per token or per batch, and a retried call
 * tells them to discard what its failed attempt showed.
 */
import { randomBytes } from 'node:crypto';
import type { Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import type { TurnEvent } from '../../src/core/state/events';
import type { LiveTextEvent } from '../../src/core/live-text';
import { buildGateway, hashToken } from '../../src/gateway';
import { defineTool } from '../../src/tools/define';
import { createHarness, type Harness } from '../support/harness';
import { openSse } from '../support/sse';

const ping = defineTool({ name: 'ping', description: 'ping', input: z.object({}), execute: () => 'pong' });
const writer = defineAgent({ name: 'writer', instructions: 'Write.', tools: ['ping'] });
const TEXT = 'The quick brown fox jumps over the lazy dog, and then it naps in the warm afternoon sun.';

let h: Harness;
let worker: Worker;
let running: Promise<void>;
beforeAll(async () => {
  h = await createHarness({ chunkSize: 8 });
  worker = await h.worker({ agents: [writer], tools: [ping] });
  running = worker.run();
});
afterAll(async () => {
  worker?.shutdown();
  await running;
  await h.close();
});

type Seen = (TurnEvent | LiveTextEvent) & { receivedAt: number };

async function follow(turnId: string): Promise<Seen[]> {
  const seen: Seen[] = [];
  for await (const e of h.tiller.watchLive(turnId)) seen.push({ ...e, receivedAt: Date.now() });
  return seen;
}

/** What a subscriber shows for call `call` after applying the deltas and discards in order. */
function shown(events: (TurnEvent | LiveTextEvent)[], call: number): string {
  let text = '';
  for (const e of events) {
    if (e.type === 'discard' && e.call === call) text = '';
    if (e.type === 'delta' && e.call === call) text += e.text;
  }
  return text;
}

const historyLength = async (turnId: string) =>
  (await h.client.workflow.getHandle(turnId).fetchHistory()).events?.length ?? 0;

test('text reaches a follower while the model types, in order, and ends exactly as the model wrote it', async () => {
  h.model.setScript([{ content: TEXT, chunkDelayMs: 120 }]);
  h.model.contentChunks.length = 0;
  const turnId = h.turnId('typing');
  await h.tiller.startTurn({ agent: 'writer', input: 'write', turnId });
  const seen = await follow(turnId);

  const deltas = seen.filter((e) => e.type === 'delta');
  const modelCalled = seen.findIndex((e) => e.type === 'MODEL_CALLED');
  // Several batches, all before the call's MODEL_CALLED, the first while the model was still typing.
  expect(deltas.length).toBeGreaterThanOrEqual(3);
  expect(seen.findIndex((e) => e.type === 'delta')).toBeLessThan(modelCalled);
  expect(deltas[0]!.receivedAt).toBeLessThan(h.model.contentChunks.at(-1)!.at);
  expect(shown(seen, 1)).toBe(TEXT);
  expect(seen.some((e) => e.type === 'discard')).toBe(false);
  expect(seen.at(-1)).toMatchObject({ type: 'TURN_COMPLETED', output: TEXT });
});

test('streaming costs no history: a turn typing 12 chunks has as many events as one typing 1', async () => {
  h.model.setScript([
    { content: TEXT.slice(0, 8), chunkDelayMs: 20 },
    { content: TEXT, chunkDelayMs: 120 },
  ]);
  const short = h.turnId('one-chunk');
  const long = h.turnId('twelve-chunks');
  await h.tiller.startTurn({ agent: 'writer', input: 'write', turnId: short });
  await h.tiller.result(short);
  await h.tiller.startTurn({ agent: 'writer', input: 'write', turnId: long });
  const seen = await follow(long);
  expect(seen.filter((e) => e.type === 'delta').length).toBeGreaterThanOrEqual(3);
  expect(await historyLength(long)).toBe(await historyLength(short));
});

test('a call that breaks mid-stream is retried, and followers are told to discard the broken attempt', async () => {
  h.model.setScript([
    { content: 'This answer will never be finished, sadly.', chunkDelayMs: 150, breakAfterChunks: 4 },
    { content: 'A fresh answer.', chunkDelayMs: 100 },
  ]);
  const turnId = h.turnId('retried');
  await h.tiller.startTurn({ agent: 'writer', input: 'write', turnId });
  const seen = await follow(turnId);
  const discard = seen.findIndex((e) => e.type === 'discard');
  expect(discard).toBeGreaterThan(-1);
  expect(seen[discard]).toMatchObject({ type: 'discard', call: 1, attempt: 1 });
  // The broken attempt's text was shown before the discard; after it, only the retry's.
  expect(shown(seen.slice(0, discard), 1).length).toBeGreaterThan(0);
  expect(shown(seen, 1)).toBe('A fresh answer.');
  const state = await h.tiller.state(turnId);
  expect(state.usage.modelCalls).toBe(1);
  expect(state.output).toBe('A fresh answer.');
});

describe('through the gateway', () => {
  const TOKEN = randomBytes(24).toString('base64url');
  let app: FastifyInstance;
  let base: string;
  beforeAll(async () => {
    app = await buildGateway({
      tiller: h.tiller,
      // The live text is content: it streams to callers with the args right only (see gateway-guard.test.ts).
      identities: { tokens: [{ name: 'ann', sha256: hashToken(TOKEN), scopes: ['read', 'args'] }] },
      rateLimit: { max: 10_000, timeWindowMs: 60_000 },
      queryTimeoutMs: 5_000,
      stream: { minIntervalMs: 50, maxIntervalMs: 500 },
    });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => app?.close());

  test('SSE subscribers get `delta` frames unless they turn them off; the turn event frames are unchanged', async () => {
    h.model.setScript([
      { content: TEXT, chunkDelayMs: 100 },
      { content: TEXT, chunkDelayMs: 100 },
    ]);
    const withText = h.turnId('sse-text');
    const without = h.turnId('sse-quiet');
    await h.tiller.startTurn({ agent: 'writer', input: 'write', turnId: withText });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const a = await openSse(`${base}/turns/${withText}/events?types=MODEL_*,TURN_*`, auth);
    await a.ended;
    const deltas = a.frames.filter((f) => f.event === 'delta');
    expect(deltas.length).toBeGreaterThanOrEqual(3);
    expect(deltas.map((f) => f.data.text).join('')).toBe(TEXT);
    expect(deltas.every((f) => f.id === undefined)).toBe(true);
    const events = a.frames.filter((f) => f.event === 'message').map((f) => f.data.type);
    expect(events).toEqual(['MODEL_CALLED', 'TURN_COMPLETED']);

    await h.tiller.startTurn({ agent: 'writer', input: 'write', turnId: without });
    const b = await openSse(`${base}/turns/${without}/events?deltas=off`, auth);
    await b.ended;
    expect(b.frames.some((f) => f.event === 'delta' || f.event === 'discard')).toBe(false);
    expect(b.frames.some((f) => f.data?.type === 'TURN_COMPLETED')).toBe(true);
    expect((await fetch(`${base}/turns/${without}/events?deltas=maybe`, { headers: auth })).status).toBe(400);
  });
});
