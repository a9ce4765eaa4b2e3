/**
 * Handoffs and guardrails as clients see them: `tiller run` (a real CLI process) prints the handoff and the
 * tripped guardrail and exits as the turn ends; the HTTP gateway starts the same turns, shows the agent
 * that has the turn, takes the decision, and reports the tripwire in the turn's state.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import type { TurnState } from '../../src/core/state';
import { buildGateway, hashToken } from '../../src/gateway';
import { scriptByInstructions } from '../../src/testing/scripted-model';
import { defineTool } from '../../src/tools/define';
import { gatewayCall, runTiller } from '../support/clients';
import { awaitingApproval, createHarness, waitForState, type Harness } from '../support/harness';

const refund = defineTool({
  name: 'refund',
  description: 'refund an order',
  input: z.object({ order: z.string() }),
  execute: ({ order }) => `refunded ${order}`,
});
const agents = [
  defineAgent({ name: 'triage', instructions: 'You triage.', tools: [], handoffs: ['billing'] }),
  defineAgent({ name: 'billing', instructions: 'You do billing.', tools: ['refund'], approvals: { refund: true } }),
  defineAgent({
    name: 'guarded',
    instructions: 'You are guarded.',
    tools: [],
    inputGuardrails: [{ name: 'no_secrets', run: ({ input }) => ({ tripwire: input.includes('password') }) }],
  }),
];
const script = () =>
  scriptByInstructions({
    'You triage.': () => ({ toolCalls: [{ name: 'transfer_to_billing', arguments: { reason: 'refund' } }] }),
    'You do billing.': ({ body }) =>
      body.messages.at(-1).role === 'tool' && body.messages.at(-1).content.startsWith('refunded')
        ? { content: 'Refunded.' }
        : { toolCalls: [{ id: `r${Date.now()}`, name: 'refund', arguments: { order: 'A-1' } }] },
    'You are guarded.': [{ content: 'never' }],
  });

const ALICE = randomBytes(24).toString('base64url');
const SAM = randomBytes(24).toString('base64url');
let h: Harness;
let app: FastifyInstance;
let base: string;
beforeAll(async () => {
  h = await createHarness({ script: script() });
  app = await buildGateway({
    tiller: h.tiller,
    identities: {
      tokens: [
        { name: 'alice', sha256: hashToken(ALICE), scopes: ['read', 'decide', 'args'] },
        { name: 'sam', sha256: hashToken(SAM), scopes: ['read', 'start'] },
      ],
    },
    rateLimit: { max: 10_000, timeWindowMs: 60_000 },
  });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await app?.close();
  await h?.close();
});

const tiller = (args: string[]) => runTiller(h, args);
const http = (method: string, url: string, as: string, body?: unknown) => gatewayCall(base, as, method, url, body);

test('tiller run: the handoff and the approval under billing, then the tripped guardrail', async () => {
  await (
    await h.worker({ agents, tools: [refund] })
  ).runUntil(async () => {
    const turnId = h.turnId('cli-handoff');
    const running = tiller(['run', 'triage', 'refund A-1', '--turn-id', turnId]);
    const waiting = await waitForState(h.tiller, turnId, awaitingApproval);
    expect(waiting.agent).toBe('billing');
    await h.tiller.approve(turnId, waiting.pendingApprovals[0]!.id, { approver: 'alice' });
    const ran = await running;
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('⇢ handed off: triage → billing (refund)');
    expect(ran.stdout).toMatch(/⏸ refund .* waits for approval/);

    const tripped = await tiller(['run', 'guarded', 'my password is x']);
    expect(tripped.code).toBe(1);
    expect(tripped.stdout).toContain('✗ input guardrail no_secrets tripped');
  });
});

test('the gateway: the handoff shows in the state, a decision resumes billing, a tripwire fails the turn', async () => {
  await (
    await h.worker({ agents, tools: [refund] })
  ).runUntil(async () => {
    const started = await http('POST', '/turns', SAM, { agent: 'triage', input: 'refund A-1' });
    expect(started.status).toBe(201);
    const turnId = started.body.turnId as string;
    const waiting = await waitForState(h.tiller, turnId, awaitingApproval);
    const seen = (await http('GET', `/turns/${turnId}`, ALICE)).body as TurnState;
    expect([seen.agent, seen.handedOffFrom]).toEqual(['billing', ['triage']]);
    expect(seen.events.some((e) => e.type === 'HANDOFF')).toBe(true);
    const decided = await http('POST', `/turns/${turnId}/decisions`, ALICE, {
      id: waiting.pendingApprovals[0]!.id,
      approved: true,
    });
    expect(decided.status).toBe(200);
    expect((await h.tiller.result(turnId)).output).toBe('Refunded.');

    const guarded = await http('POST', '/turns', SAM, { agent: 'guarded', input: 'password please' });
    const result = await h.tiller.result(guarded.body.turnId);
    expect([result.status, result.guardrail?.name]).toEqual(['failed', 'no_secrets']);
    const state = (await http('GET', `/turns/${guarded.body.turnId}`, ALICE)).body as TurnState;
    expect(state.guardrails?.[0]).toMatchObject({ name: 'no_secrets', tripped: true });
  });
});
