/**
 * Issue 12, the flood that needs continue-as-new: 30 `decide` signals of ~1.9 MB each (a legal
 * Temporal payload; the turn must refuse every one — its `reason` is over the 2000-character cap)
 * sent to a turn that waits for approval. Temporal records every signal in history whatever the
 * workflow does, so 30 × 1.9 MB ≈ 57 MB passes the 50 MB history limit at which Temporal terminates
 * a run. The turn must survive it: continue as new in time, under the same workflow id, with its
 * pending approval, and still decide.
 *
 * By default each signal is sent once the turn has recorded the previous one (a client that waits for
 * its answer, or one Temporal's rate limits slow down): the turn continues as new in time.
 * TILLER_FUZZ_BURST=1 sends them back to back without waiting — the known limit in SECURITY.md: the
 * server refuses a continue-as-new while new signals arrive during the workflow task that asks for it,
 * so a burst faster than the worker's workflow tasks gets the run terminated at 50 MB.
 *
 * Run alone: npx jest test/integration/fuzz-flood.test.ts
 */
import fs from 'node:fs';
import { createHarness, type Harness } from '../support/harness';
import { startAwaitingTurn } from '../support/fuzz/awaiting-turn';
import { BUDGETS } from '../support/fuzz/config';
import { fuzzEnv, type FuzzEnv } from '../support/fuzz/env';
import { describe as describeTurn, drainAbandoned } from '../support/fuzz/history';
import { checkTurn, stateViolations } from '../support/fuzz/invariants';
import { rawJson } from '../support/fuzz/raw-client';
import { errorText, queryState } from '../support/fuzz/turn-probe';

const SIGNALS = 30;
const SIGNAL_BYTES = 1_900_000;
const BURST = process.env.TILLER_FUZZ_BURST === '1';

/** Waits (polling the query) until the turn has refused `count` decisions, within the settle budget. */
async function refusedAtLeast(turnId: string, count: number): Promise<string | undefined> {
  const deadline = Date.now() + BUDGETS.settleMs;
  let last = '';
  while (Date.now() < deadline) {
    const answer = await queryState(h.client, turnId);
    if (answer.ok && answer.state.events.filter((e) => e.type === 'DECISION_REJECTED').length >= count)
      return undefined;
    last = answer.ok ? `${answer.state.status}` : answer.error;
    await new Promise((r) => setTimeout(r, 50)); // a poll interval, not a wait standing in for one
  }
  return `the turn did not record signal ${count} within ${BUDGETS.settleMs} ms (${last})`;
}

let h: Harness;
let env: FuzzEnv | undefined;

beforeAll(async () => {
  h = await createHarness();
  env = await fuzzEnv(h);
}, 60_000);

afterAll(async () => {
  const drained = await drainAbandoned();
  if (!drained.startsWith('0 ')) console.log(drained);
  await env?.close();
  await h?.close();
}, 120_000);

test(`flood: 30 decide signals of 1.9 MB each${BURST ? ', back to back,' : ''} do not get the turn terminated (it continues as new)`, async () => {
  const e = env!;
  const turnId = h.turnId('fuzz-flood');
  const pending = await startAwaitingTurn(e, turnId);
  if (typeof pending === 'string') throw new Error(pending);
  const firstRun = (await h.client.workflow.getHandle(turnId).describe()).runId;

  const filler = 'r'.repeat(SIGNAL_BYTES - 100);
  const payload = rawJson(`{"id":${JSON.stringify(pending.id)},"approved":true,"reason":"${filler}"}`);
  const started = Date.now();
  const log: string[] = [];
  let sent = 0;
  const timings: string[] = [];
  while (sent < SIGNALS) {
    const t0 = Date.now();
    try {
      await e.raw.workflow.getHandle(turnId).signal('decide', payload);
    } catch (err) {
      log.push(`signal ${sent + 1} refused: ${errorText(err)}`);
      break;
    }
    sent++;
    if (!BURST) {
      const late = await refusedAtLeast(turnId, sent);
      if (late) {
        log.push(late);
        break;
      }
    }
    const t1 = Date.now();
    const d = await describeTurn(h.client, turnId, BUDGETS.queryMs);
    timings.push(`${sent}: ${t1 - t0}+${Date.now() - t1} ms ${(d.historySizeBytes / 1e6).toFixed(1)} MB`);
    if (d.status !== 'RUNNING') {
      log.push(`after signal ${sent}: ${d.status} (history ${d.historyLength} events, ${d.historySizeBytes} bytes)`);
      break;
    }
  }
  const sendSeconds = ((Date.now() - started) / 1000).toFixed(1);
  log.push(`per signal (send + describe ms, history size after): ${timings.join(', ')}`);
  const d = await describeTurn(h.client, turnId, BUDGETS.queryMs);
  const answer = await queryState(h.client, turnId);
  console.log(
    [
      `flood: ${sent} of ${SIGNALS} signals of ${SIGNAL_BYTES} bytes sent in ${sendSeconds} s`,
      `turn ${d.status}; latest run's history ${d.historyLength} events, ${d.historySizeBytes} bytes`,
      `state: ${answer.ok ? `${answer.state.status}, ${answer.bytes} bytes, pending ${answer.state.pendingApprovals.map((p) => p.id).join(',') || '(none)'}` : answer.error}`,
      ...log,
    ].join('\n'),
  );

  const violations: string[] = [];
  if (sent < SIGNALS && d.status === 'RUNNING') violations.push(`Temporal refused signal ${sent + 1} of ${SIGNALS}`);
  if (d.status !== 'RUNNING') violations.push(`I1 the turn is ${d.status} after the flood`);
  violations.push(...stateViolations(answer));
  if (answer.ok && !answer.state.pendingApprovals.some((p) => p.id === pending.id)) {
    violations.push(`I4 the pending call ${pending.id} is no longer pending`);
  }
  if (d.status === 'RUNNING') {
    try {
      await h.tiller.deny(turnId, pending.id, { reason: 'fuzz: valid deny after the flood' });
    } catch (err) {
      violations.push(`I1 a valid deny was refused after the flood: ${errorText(err)}`);
    }
    const check = await checkTurn(h.client, turnId, { sentinel: e.sentinel, reader: e.reader, approved: new Set() });
    violations.push(...check.violations);
  }
  if (!fs.existsSync(e.sentinel)) violations.push('I4 the sentinel file was deleted');
  const lastRun = (await h.client.workflow.getHandle(turnId).describe()).runId;
  if (lastRun === firstRun) violations.push('the turn never continued as new');
  expect(violations).toEqual([]);
}, 300_000);
