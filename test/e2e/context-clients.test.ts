/**
 * The context window as clients drive it: a session on a model whose context holds 4,000 tokens (the
 * scripted model refuses past it, like OpenAI), its turns sent through the HTTP gateway (1,000 of them)
 * and through `tiller send` (a real CLI process per turn, past the point where the window is full). Every
 * turn completes, no prompt passes the limit, and the trims show in the turns' state. The same session
 * through the client alone is test/integration/context-window.test.ts.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { defineAgent } from '../../src/agents/define';
import type { TurnState } from '../../src/core/state';
import { buildGateway, hashToken } from '../../src/gateway';
import { countPromptTokens } from '../../src/testing/scripted-model/chat-completions';
import type { ScriptFn } from '../../src/testing/scripted-model';
import { gatewayCall, runTiller } from '../support/clients';
import { createHarness, type Harness } from '../support/harness';

const LIMIT = 4_000;
const agents = [
  defineAgent({ name: 'trimmer', instructions: 'Be brief.', tools: [], contextWindow: { tokens: LIMIT } }),
];
/** Answers of ~400 characters (~100 tokens): a turn is ~130 tokens, so about 30 turns fill the window. */
const chatty: ScriptFn = ({ body }) => ({
  content: `Re "${String(body.messages.at(-1)?.content ?? '').slice(0, 40)}": ${'words '.repeat(60)}`,
});
const message = (i: number) => `message number ${i} with some padding to take room`;

const SAM = randomBytes(24).toString('base64url');
let h: Harness;
let app: FastifyInstance;
let base: string;
beforeAll(async () => {
  h = await createHarness({ contextLimit: LIMIT, script: chatty });
  app = await buildGateway({
    tiller: h.tiller,
    identities: { tokens: [{ name: 'sam', sha256: hashToken(SAM), scopes: ['read', 'start'] }] },
    rateLimit: { max: 100_000, timeWindowMs: 60_000 },
  });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});
beforeEach(() => {
  h.model.requests.length = 0;
});
afterAll(async () => {
  await app?.close();
  await h?.close();
});

const http = (method: string, url: string, body?: unknown) => gatewayCall(base, SAM, method, url, body);
const tillerSend = (sessionId: string, input: string) => runTiller(h, ['send', sessionId, input, '--agent', 'trimmer']);

/** The session's turns' states, read through the gateway: how many were trimmed. */
async function trimmedTurns(turnIds: string[]): Promise<number> {
  let trimmed = 0;
  for (const id of turnIds) {
    const seen = await http('GET', `/turns/${id}`);
    expect(seen.status).toBe(200);
    if ((seen.body as TurnState).events.some((e) => e.type === 'CONTEXT_TRIMMED')) trimmed++;
  }
  return trimmed;
}

const biggestPrompt = () => Math.max(...h.model.requests.map((r) => countPromptTokens(r.body)));

test('the gateway: 1,000 turns of one session on a 4,000-token context all complete, trimmed within it', async () => {
  await (
    await h.worker({ agents })
  ).runUntil(async () => {
    const sessionId = h.turnId('gateway-context');
    const turnIds: string[] = [];
    for (let i = 1; i <= 1_000; i++) {
      const started = await http('POST', '/turns', { agent: 'trimmer', input: message(i), sessionId });
      expect(started.status).toBe(201);
      const result = await h.tiller.result(started.body.turnId as string);
      if (result.status !== 'completed') throw new Error(`turn ${i} ended ${result.status}: ${result.error}`);
      turnIds.push(started.body.turnId as string);
    }
    // Once the window is full (about turn 30) turns trim; read the last 50 through the gateway.
    expect(await trimmedTurns(turnIds.slice(-50))).toBeGreaterThan(0);
  });
  expect(h.model.requests.length).toBe(1_000);
  expect(biggestPrompt()).toBeLessThanOrEqual(LIMIT);
}, 900_000);

test('tiller send: 40 turns of one session, past the full window, each printed and completed', async () => {
  await (
    await h.worker({ agents })
  ).runUntil(async () => {
    const sessionId = h.turnId('cli-context');
    const turnIds: string[] = [];
    for (let i = 1; i <= 40; i++) {
      const sent = await tillerSend(sessionId, message(i));
      expect(sent.code).toBe(0);
      const turnId = /· turn (\S+)/.exec(sent.stdout)?.[1];
      expect(turnId).toBeDefined();
      expect(sent.stdout).toContain(`Re "message number ${i} `);
      turnIds.push(turnId!);
    }
    // About 30 turns fill the window: the turns after it trim.
    expect(await trimmedTurns(turnIds.slice(30))).toBeGreaterThan(0);
  });
  expect(h.model.requests.length).toBe(40);
  expect(biggestPrompt()).toBeLessThanOrEqual(LIMIT);
}, 600_000);
