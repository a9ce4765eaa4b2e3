/**
 * A signal flood from an approver's token against the secured cluster (issue 24): every `decide` signal
 * it sends as itself is either taken or refused with ResourceExhausted by the namespace's rate limit
 * (deploy/temporal/dynamicconfig.yaml) — never anything else — and the turn it floods still decides
 * afterwards. The figures it prints are RELIABILITY.md's "Rate limits" section.
 */
import { randomUUID } from 'node:crypto';
import { TillerClient } from '../../src/client';
import { temporalSettings } from '../../src/config';
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

test('an approver flooding decide signals gets the rate limit, nothing else, and the turn still decides', async () => {
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

  const flood = await floodSignals(flooder, turnId, {
    seconds: 5,
    concurrency: 64,
    decision: { id: 'no-such-call', approved: true },
  });
  process.stdout.write(`flood: ${JSON.stringify(flood)}\n`);
  expect(flood.other).toEqual({}); // taken or ResourceExhausted: the approver's own decide is allowed
  expect(flood.accepted).toBeGreaterThan(0);
  // The namespace's limit (frontend.namespaceRPS 1200/s, bursts to 2,400) bounds what was taken.
  expect(flood.accepted).toBeLessThanOrEqual(1200 * flood.seconds + 2400);
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
