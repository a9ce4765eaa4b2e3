/** scripts/soak/audit-check.ts: the soak's decisions held against an audit export of its turns. */
import { chainRows, type AuditEntry } from '../../src/audit';
import type { TurnResult } from '../../src/core/schemas';
import { reconcileAudit } from '../../scripts/soak/audit-check';
import { soakChannel } from '../../scripts/soak/audit';
import type { TurnRecord } from '../../scripts/soak/turns';

const scenario = { kind: 'approve', id: 'x', agent: 'a', input: 'i', expect: {} } as unknown as TurnRecord['scenario'];
const result = (calls: TurnResult['toolCalls']) => ({ status: 'completed', toolCalls: calls }) as unknown as TurnResult;
const decided = (id: string, approved: boolean, approver: string) => ({
  id,
  name: 'gated',
  args: {},
  status: approved ? 'succeeded' : 'denied',
  decision: { approved, approver, via: 'update', scope: 'once', at: '2026-12-06T00:00:00Z' },
});

/** A race (gateway wins, tiller-cli refused), a denial by signal, and an expiry. */
const records: TurnRecord[] = [
  {
    scenario,
    turnId: 'race',
    startedAt: 0,
    result: result([decided('c1', true, 'gw-user') as never]),
    decisions: [
      {
        client: 'gateway',
        turnId: 'race',
        callId: 'c1',
        approved: true,
        outcome: 'acknowledged',
        approver: 'gw-user',
        attempts: 1,
      },
      {
        client: 'tiller-cli',
        turnId: 'race',
        callId: 'c1',
        approved: false,
        outcome: 'refused',
        approver: 'soak-cli',
        attempts: 1,
      },
    ],
  },
  {
    scenario,
    turnId: 'deny',
    startedAt: 0,
    result: result([decided('c2', false, 'soak-temporal-signal') as never]),
    decisions: [
      {
        client: 'temporal-cli-signal',
        turnId: 'deny',
        callId: 'c2',
        approved: false,
        outcome: 'acknowledged',
        approver: 'soak-temporal-signal',
        attempts: 1,
      },
    ],
  },
  {
    scenario,
    turnId: 'late',
    startedAt: 0,
    result: result([{ id: 'c3', name: 'timed', args: {}, status: 'timed_out' }]),
    decisions: [],
  },
];
const row = (e: Partial<AuditEntry>): AuditEntry => ({
  turnId: 'race',
  outcome: 'approved',
  channel: 'x',
  via: 'update',
  ...e,
});
const rows = (entries: AuditEntry[]) => chainRows(entries);
const good: AuditEntry[] = [
  row({ turnId: 'race', toolCallId: 'c1', outcome: 'approved', approver: 'gw-user', channel: 'gateway' }),
  row({
    turnId: 'deny',
    toolCallId: 'c2',
    outcome: 'denied',
    approver: 'soak-temporal-signal',
    channel: 'temporal-cli',
    via: 'signal',
  }),
  row({ turnId: 'late', toolCallId: 'c3', outcome: 'expired', channel: 'timeout', via: 'timeout' }),
];

test('an audit that lists exactly what the soak did reconciles, counting the validator refusal apart', () => {
  const r = reconcileAudit(records, rows(good), soakChannel(false));
  expect(r.problems).toEqual([]);
  expect(r).toMatchObject({
    soakApplied: 2,
    auditDecided: 2,
    soakExpired: 1,
    auditExpired: 1,
    soakRefused: 1,
    refusedInHistory: 0,
  });
});

test('a missing decision, a decision on the wrong channel, an invented one and a missing expiry are each named', () => {
  expect(reconcileAudit(records, rows(good.slice(1)), soakChannel(false)).problems.join('\n')).toMatch(
    /race c1: gateway's decision \(true\) is 0 audit rows[\s\S]*lists 1 decisions; the soak saw 2/,
  );
  // On the secured cluster the signal decider signals through the SDK: temporal-cli is then wrong.
  expect(reconcileAudit(records, rows(good), soakChannel(true)).problems.join('\n')).toMatch(
    /deny c2: temporal-cli-signal's decision \(false\) is 0 audit rows on channel sdk/,
  );
  const invented = [...good, row({ turnId: 'other', toolCallId: 'c9', approver: 'mallory', channel: 'sdk' })];
  expect(reconcileAudit(records, rows(invented), soakChannel(false)).problems.join('\n')).toMatch(
    /a decision the soak did not send/,
  );
  const refusedFromNowhere = [...good, row({ turnId: 'late', toolCallId: 'c3', outcome: 'refused', approver: 'eve' })];
  expect(reconcileAudit(records, rows(refusedFromNowhere), soakChannel(false)).problems.join('\n')).toMatch(
    /a refused attempt on late c3 the soak did not send/,
  );
  expect(reconcileAudit(records, rows(good.slice(0, 2)), soakChannel(false)).problems.join('\n')).toMatch(
    /lists 0 expiries; the soak let 1 expire/,
  );
});

test('the soak takes --port only where every port it derives is a port, and refuses anything else', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parseOptions } = require('../../scripts/soak/options') as typeof import('../../scripts/soak/options');
  expect(parseOptions(['--quick', '--port', '12233']).port).toBe(12233);
  expect(parseOptions(['--quick']).port).toBeUndefined();
  for (const bad of ['17337', '80', 'x', '-1', '12233.5']) {
    expect(() => parseOptions(['--port', bad])).toThrow(/--port takes a port between 2000 and 17336/);
  }
  expect(() => parseOptions(['--port'])).toThrow(/--port needs a value/);
});
