/**
 * `tiller audit`: turns whose gated call is approved from the tiller CLI, denied from the SDK after a
 * refused signal from the stock `temporal` CLI, approved with edited arguments through the HTTP gateway,
 * left to expire, and escalated to a second approver who approves it. The export lists each decision with its channel, its count equals the turns' own
 * (decided or expired calls, and DECISION_REJECTED events), `audit verify` passes on JSON Lines and CSV,
 * and catches a changed row.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { AuditRow, inlineSessionsQuery, parseExport } from '../../src/audit';
import { defineAgent } from '../../src/agents/define';
import { buildGateway, hashToken } from '../../src/gateway';
import type { TurnState } from '../../src/core/state';
import { runTiller } from '../support/clients';
import { pollUntil } from '../support/wait';
import { stamperScript, stampTool, V1 } from '../support/eval-agent';
import { awaitingApproval, createHarness, waitForState, type Harness } from '../support/harness';

jest.setTimeout(240_000);

const exec = promisify(execFile);
const CAROL = 'carol-token';
const guarded = defineAgent({
  name: 'guarded',
  instructions: V1,
  tools: ['stamp'],
  approvals: { stamp: { approvers: ['alice', 'bob', 'carol'] } },
});
const escalating = defineAgent({
  name: 'escalating',
  instructions: V1,
  tools: ['stamp'],
  approvals: { stamp: { approvers: ['alice'], timeout: '2s', onTimeout: { escalate: { approvers: ['dave'] } } } },
});
const hasty = defineAgent({
  name: 'hasty',
  instructions: V1,
  tools: ['stamp'],
  approvals: { stamp: { timeout: '2s' } },
});

let h: Harness;
let app: FastifyInstance;
let base: string;
let dir: string;
const states: TurnState[] = [];
const turns: Record<'cli' | 'sdk' | 'gateway' | 'expired' | 'escalated', string> = {
  cli: '',
  sdk: '',
  gateway: '',
  expired: '',
  escalated: '',
};

async function paused(turnId: string): Promise<string> {
  const state = await waitForState(h.tiller, turnId, awaitingApproval, 60_000);
  return state.pendingApprovals[0]!.id;
}

beforeAll(async () => {
  h = await createHarness({ script: stamperScript });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-audit-'));
  app = await buildGateway({
    tiller: h.tiller,
    identities: { tokens: [{ name: 'carol', sha256: hashToken(CAROL), scopes: ['read', 'decide', 'args'] }] },
    rateLimit: { max: 10_000, timeWindowMs: 60_000 },
  });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
  await h.withWorker(
    async () => {
      const start = async (agent: string, n: number) =>
        (await h.tiller.startTurn({ agent, input: `Please check order ${n}.` })).workflowId;
      turns.cli = await start('guarded', 1);
      turns.sdk = await start('guarded', 2);
      turns.gateway = await start('guarded', 3);
      turns.expired = await start('hasty', 4);
      turns.escalated = await start('escalating', 5);

      const cliCall = await paused(turns.cli);
      expect((await runTiller(h, ['approve', turns.cli, cliCall, '--as', 'alice'])).code).toBe(0);

      const sdkCall = await paused(turns.sdk);
      const signal = JSON.stringify({ id: sdkCall, approved: true, approver: 'mallory' });
      const cli = process.env.TILLER_TEST_TEMPORAL_CLI!;
      await exec(cli, [
        'workflow',
        'signal',
        '--address',
        h.address,
        '-w',
        turns.sdk,
        '--name',
        'decide',
        '--input',
        signal,
      ]);
      await waitForState(h.tiller, turns.sdk, (s) => s.events.some((e) => e.type === 'DECISION_REJECTED'), 60_000);
      await h.tiller.deny(turns.sdk, sdkCall, { reason: 'not today', approver: 'bob' });

      const gwCall = await paused(turns.gateway);
      const res = await fetch(`${base}/turns/${turns.gateway}/decisions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${CAROL}`, 'content-type': 'application/json', 'idempotency-key': 'k-1' },
        body: JSON.stringify({ id: gwCall, approved: true, args: { order: 33 }, reason: 'order 33 is meant' }),
      });
      expect(res.status).toBe(200);

      // Past its first stage's 2 s, the call waits for dave, who approves it.
      const escalated = await waitForState(
        h.tiller,
        turns.escalated,
        (s) => !!s.pendingApprovals[0]?.escalated,
        60_000,
      );
      await h.tiller.approve(turns.escalated, escalated.pendingApprovals[0]!.id, { approver: 'dave' });

      for (const id of Object.values(turns)) {
        await h.tiller.result(id);
        states.push(await h.tiller.state(id));
      }
    },
    { agents: [guarded, hasty, escalating], tools: [stampTool(path.join(dir, 'marks.txt'))] },
  );
});

afterAll(async () => {
  await app?.close();
  fs.rmSync(dir, { recursive: true, force: true });
  await h?.close();
});

test('the export lists every decision with its channel, as many as the turns count, and verifies', async () => {
  const file = path.join(dir, 'audit.jsonl');
  const ids = Object.values(turns);
  expect((await runTiller(h, ['audit', ...ids, '--out', file])).code).toBe(0);
  const rows = parseExport(fs.readFileSync(file, 'utf8'));
  const of = (turn: string) => rows.filter((r) => r.turnId === turn).map((r) => [r.outcome, r.channel, r.approver]);
  expect(of(turns.cli)).toEqual([['approved', 'cli', 'alice']]);
  expect(of(turns.sdk)).toEqual([
    ['refused', 'temporal-cli', 'mallory'],
    ['denied', 'sdk', 'bob'],
  ]);
  expect(of(turns.gateway)).toEqual([['edited', 'gateway', 'carol']]);
  expect(of(turns.expired)).toEqual([['expired', 'timeout', undefined]]);
  expect(of(turns.escalated)).toEqual([
    ['escalated', 'timeout', undefined],
    ['approved', 'sdk', 'dave'],
  ]);
  expect(rows.find((r) => r.outcome === 'escalated')).toMatchObject({ tool: 'stamp', reason: 'escalated to dave' });
  const denied = rows.find((r) => r.outcome === 'denied')!;
  expect(denied).toMatchObject({ tool: 'stamp', reason: 'not today', via: 'update' });
  expect(denied.argsDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(denied.args).toBeUndefined();

  // As many rows as the turns' own state counts: decided, expired or escalated calls, and refused attempts.
  let own = 0;
  for (const s of states) {
    own += s.toolCalls.filter((c) => c.decision || c.status === 'timed_out').length;
    own += s.toolCalls.filter((c) => c.escalated).length;
    own += s.events.filter((e) => e.type === 'DECISION_REJECTED').length;
  }
  expect(rows).toHaveLength(own);
  // The digest is the one the approver was shown.
  const sdkState = states.find((s) => s.turnId === turns.sdk)!;
  const requested = sdkState.events.find((e) => e.type === 'APPROVAL_REQUESTED');
  expect(requested && 'argsDigest' in requested && requested.argsDigest).toBe(denied.argsDigest);

  const verify = await runTiller(h, ['audit', 'verify', file]);
  expect(verify).toMatchObject({ code: 0, stdout: expect.stringContaining(`ok: ${own} rows`) });
});

test('verify catches a changed row, in JSON Lines and in CSV', async () => {
  const ids = Object.values(turns);
  for (const format of ['jsonl', 'csv']) {
    const file = path.join(dir, `audit.${format}`);
    expect((await runTiller(h, ['audit', ...ids, '--format', format, '--args', '--out', file])).code).toBe(0);
    expect((await runTiller(h, ['audit', 'verify', file])).code).toBe(0);
    const text = fs.readFileSync(file, 'utf8');
    const changed = text.replace('"reason":"not today"', '"reason":"approved"').replace(',not today,', ',approved,');
    expect(changed).not.toBe(text);
    fs.writeFileSync(file, changed);
    const broken = await runTiller(h, ['audit', 'verify', file]);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/BROKEN at row \d+: row \d+ was changed/);
  }
  const rows = parseExport(fs.readFileSync(path.join(dir, 'audit.jsonl'), 'utf8'));
  expect(rows.find((r) => r.outcome === 'edited')).toMatchObject({ editedArgs: { order: 33 }, args: { order: 3 } });
  expect(AuditRow.array().safeParse(rows).success).toBe(true);
});

test('a range with sessions of inline turns says their decisions are not in the trail; an inline turn id is refused', async () => {
  const since = new Date(Date.now() - 1000).toISOString();
  const sessionId = h.turnId('audit-inline');
  await h.withWorker(
    async () => {
      const { turnId } = await h.tiller.send(sessionId, 'Please check order 9.', {
        agent: 'guarded',
        inlineTurns: true,
      });
      await h.tiller.approve(turnId, await paused(turnId), { approver: 'alice' });
      expect(await h.tiller.result(turnId)).toMatchObject({ status: 'completed' });
      // Visibility is eventually consistent: wait until the session is listed with Tiller's status.
      await pollUntil(
        async () => ((await h.client.workflow.count(inlineSessionsQuery(since))).count > 0 ? true : undefined),
        'the session of inline turns in visibility',
      );
      const ranged = await runTiller(h, ['audit', '--since', since, '--out', path.join(dir, 'inline.jsonl')]);
      expect(ranged.code).toBe(0);
      expect(ranged.stderr).toMatch(/note: [1-9]\d* session\(s\) in this range ran their turns inside the session/);
      const named = await runTiller(h, ['audit', turnId]);
      expect(named.code).not.toBe(0);
      expect(named.stderr).toContain(`turn ${turnId} ran inside session ${sessionId} (inlineTurns)`);
    },
    { agents: [guarded], tools: [stampTool(path.join(dir, 'marks.txt'))] },
  );
});
