/**
 * A signal flood from an approver's token against the secured cluster (issue 24): every `decide` signal
 * it sends as itself is either taken or refused by the limits of deploy/temporal/dynamicconfig.yaml
 * (ResourceExhausted from the namespace's rate limit, or the per-run signal cap's refusal) — never
 * anything else; the flood goes on until one refuses (the test fails if none does), and the turn it
 * floods still decides afterwards. The figures it prints are RELIABILITY.md's "Rate limits" section.
 */
import { randomUUID } from 'node:crypto';
import { TillerClient } from '../../src/client';
import { temporalSettings } from '../../src/client/connect';
import { attachCluster } from '../../scripts/cluster/index';
import { clientWithoutRetries, floodSignals } from '../../scripts/cluster/flood';
import type { Cluster } from '../../scripts/cluster/types';

let cluster: Cluster;
const clients: TillerClient[] = [];
beforeAll(() => {
  const found = attachCluster();
  if (!found?.secured) throw new Error('this suite needs the secured cluster: run `npm run cluster -- up` first');
  cluster = found;
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
});

test('an approver flooding decide signals is refused by the limits, nothing else, and the turn still decides', async () => {
  const gateway = await TillerClient.connect(temporalSettings(cluster.clientEnv('gateway')));
  clients.push(gateway);
  const token = await cluster.token({ role: 'approver', subject: 'flooder' });
  const flooder = await clientWithoutRetries(
    temporalSettings({ ...cluster.clientEnv('approver'), TEMPORAL_API_KEY: token }),
    token,
  );
  clients.push(flooder);
  const turnId = `flood-${randomUUID()}`;
  await gateway.startTurn({ agent: 'assistant', input: 'Read notes.txt, then delete it.', turnId });
  let callId: string | undefined;
  const deadline = Date.now() + 60_000;
  while (!callId) {
    callId = (await gateway.summary(turnId).catch(() => undefined))?.pendingApprovals[0]?.id;
    if (!callId && Date.now() > deadline) throw new Error(`turn ${turnId} never waited for a decision`);
    if (!callId) await new Promise((r) => setTimeout(r, 200));
  }

  // The flood goes on until something is refused. Of the limits, the namespace's rate (1200/s) is out
  // of one flooder's reach here (about 50 signal writes/s, RELIABILITY.md), so what refuses is the
  // per-run cap (history.maximumSignalsPerExecution, 2,000): reached after about 40 s. A flood that
  // was never refused fails the test (issue 34: it used to check nothing was refused at all).
  const CAP = 2_000;
  const rounds = [];
  let refused = 0;
  while (refused === 0 && rounds.length < 10) {
    const flood = await floodSignals(flooder, turnId, {
      seconds: 15,
      concurrency: 64,
      decision: { id: 'no-such-call', approved: true },
    });
    process.stdout.write(`flood: ${JSON.stringify(flood)}\n`);
    rounds.push(flood);
    // Taken, ResourceExhausted, or the cap's own refusal: the approver's own decide is allowed.
    const otherThanCap = Object.keys(flood.other).filter((k) => !/signal/i.test(k));
    expect(otherThanCap).toEqual([]);
    refused += [...Object.values(flood.exhausted), ...Object.values(flood.other)].reduce((a, b) => a + b, 0);
  }
  const accepted = rounds.reduce((n, r) => n + r.accepted, 0);
  expect(accepted).toBeGreaterThan(0);
  expect(refused).toBeGreaterThan(0);
  // The cap bounds what was taken (the turn's own signals before the flood count against it too).
  expect(accepted).toBeLessThanOrEqual(CAP);
  // The flood left the call waiting, and a real decision still lands.
  const ops = await TillerClient.connect(
    temporalSettings({
      ...cluster.clientEnv('approver'),
      TEMPORAL_API_KEY: await cluster.token({ role: 'approver', subject: 'ops' }),
    }),
  );
  clients.push(ops);
  const decided = await ops.approve(turnId, callId);
  expect(decided).toMatchObject({ id: callId, approved: true, approver: 'ops' });
  expect((await gateway.result(turnId)).status).toBe('completed');
});
