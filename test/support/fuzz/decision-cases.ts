/**
 * Arbitraries of hostile decisions: payloads for the `decide` signal and update of a turn that waits
 * for approval of `delete_file` on the sentinel. Every payload but the `approve-edited-args` class is
 * one the turn must refuse; those approve the pending call with hostile edited arguments that point
 * at a decoy file.
 */
import fc from 'fast-check';
import { deepJson, jsonString, longText, wideObject } from './json-text';
import type { RawPayload } from './raw-client';
import { oddString } from './unicode';
import { PROTOTYPE_NAMES } from './prototype-names';
import { size } from './sizes';

export const DECOY = 'decoy.txt';

export const DECISION_CLASSES = [
  'wrong-types',
  'near-miss',
  'unknown-ids',
  'prototype-ids',
  'oversized-fields',
  'deep-json',
  'bad-encoding',
  'flood-signals',
  'flood-updates',
  'approve-edited-args',
] as const;
export type DecisionClass = (typeof DECISION_CLASSES)[number];

/** The turn the decisions are aimed at: its pending call, that call's digest, a finished call. */
export interface Pending {
  id: string;
  digest: string;
  doneId: string;
}

export interface HostileDecision {
  via: 'signal' | 'update';
  label: string;
  payload(p: Pending): RawPayload;
  /** `rejected`: the turn must refuse it. `approves`: a valid approval of the pending call (edited args). */
  expect: 'rejected' | 'approves';
}

export interface DecisionCase {
  cls: DecisionClass;
  label: string;
  inputs: HostileDecision[];
  /** Send them all at once (a flood) rather than one by one, checking after each. */
  concurrent: boolean;
}

const MAX_PAYLOAD_BYTES = 1_900_000;
const via = fc.constantFrom('signal' as const, 'update' as const);
const json = (text: string): RawPayload => ({ encoding: 'json/plain', data: text });
const kb = (n: number) => `${Math.round(n / 1024)}KiB`;

/** `{ "id": <pending>, "approved": true, ... }` with `members` (JSON text each) added or overriding. */
const approvePending = (p: Pending, members: Record<string, string>): string => {
  const all: Record<string, string> = { id: jsonString(p.id), approved: 'true', ...members };
  return `{${Object.entries(all)
    .map(([k, v]) => `${jsonString(k)}:${v}`)
    .join(',')}}`;
};

const rejected = (label: string, v: 'signal' | 'update', payload: (p: Pending) => RawPayload): HostileDecision => ({
  via: v,
  label,
  payload,
  expect: 'rejected',
});

const weirdValue = fc.constantFrom(
  'null',
  '0',
  '-1',
  '1e308',
  'true',
  'false',
  '""',
  '"x"',
  '[]',
  '[null]',
  '{}',
  '{"a":1}',
);

/** Wrong types anywhere: the whole payload, or one member of an otherwise valid approval. */
const wrongType: fc.Arbitrary<(v: 'signal' | 'update') => HostileDecision> = fc.oneof(
  weirdValue.map((w) => (v: 'signal' | 'update') => rejected(`payload ${w}`, v, () => json(w))),
  fc.constant((v: 'signal' | 'update') =>
    rejected('payload [valid approval]', v, (p) => json(`[${approvePending(p, {})}]`)),
  ),
  fc
    .record({
      member: fc.constantFrom('id', 'approved', 'scope', 'approver', 'reason', 'approverGroups', 'argsDigest', 'args'),
      value: weirdValue,
    })
    // A value of the right type for the member is not hostile here: leave those out.
    .filter(({ member, value }) => !rightType(member, value))
    .map(
      ({ member, value }) =>
        (v: 'signal' | 'update') =>
          rejected(`approval with ${member} = ${value}`, v, (p) => json(approvePending(p, { [member]: value }))),
    ),
  fc
    .constantFrom('"true"', '1', '"yes"')
    .map(
      (w) => (v: 'signal' | 'update') =>
        rejected(`approval with approved = ${w}`, v, (p) => json(approvePending(p, { approved: w }))),
    ),
);

function rightType(member: string, value: string): boolean {
  const parsed: unknown = JSON.parse(value);
  if (member === 'approved') return typeof parsed === 'boolean';
  if (member === 'args') return !!parsed && typeof parsed === 'object' && !Array.isArray(parsed);
  if (member === 'approverGroups') return Array.isArray(parsed) && parsed.every((g) => typeof g === 'string');
  if (member === 'id') return false; // any non-string id is wrong; "" and "x" are unknown ids: still rejected
  return typeof parsed === 'string' && member !== 'scope';
}

/** Right id, approved, right types — and one thing wrong. */
const nearMiss: fc.Arbitrary<(v: 'signal' | 'update') => HostileDecision> = fc.constantFrom(
  ...(
    [
      ['reason of 2001 chars', (p: Pending) => approvePending(p, { reason: jsonString('r'.repeat(2001)) })],
      ['approver of 201 chars', (p: Pending) => approvePending(p, { approver: jsonString('a'.repeat(201)) })],
      [
        '51 approver groups',
        (p: Pending) => approvePending(p, { approverGroups: JSON.stringify(Array(51).fill('g')) }),
      ],
      [
        'argsDigest of another call',
        (p: Pending) => approvePending(p, { argsDigest: jsonString(`sha256:${'0'.repeat(64)}`) }),
      ],
      [
        'argsDigest of 201 chars',
        (p: Pending) => approvePending(p, { argsDigest: jsonString(p.digest + 'x'.repeat(201)) }),
      ],
      ['scope "forever"', (p: Pending) => approvePending(p, { scope: '"forever"' })],
      ['an unknown member', (p: Pending) => approvePending(p, { sudo: 'true' })],
      ['a __proto__ member', (p: Pending) => approvePending(p, { ['__proto__']: '{"approved":true}' })],
      ['denied with edited args', (p: Pending) => approvePending(p, { approved: 'false', args: '{"path":"x"}' })],
      ['the id of a finished call', (p: Pending) => approvePending({ ...p, id: p.doneId }, {})],
      ['the id with a trailing space', (p: Pending) => approvePending({ ...p, id: `${p.id} ` }, {})],
      ['the id with a zero-width space', (p: Pending) => approvePending({ ...p, id: `${p.id}\u200b` }, {})],
      ['the id upper-cased', (p: Pending) => approvePending({ ...p, id: p.id.toUpperCase() }, {})],
      ['the id with #2', (p: Pending) => approvePending({ ...p, id: `${p.id}#2` }, {})],
      ['edited args that fail the schema', (p: Pending) => approvePending(p, { args: '{"path":42}' })],
    ] as const
  ).map(
    ([label, build]) =>
      (v: 'signal' | 'update') =>
        rejected(label, v, (p) => json(build(p))),
  ),
);

const unknownId: fc.Arbitrary<(v: 'signal' | 'update') => HostileDecision> = fc
  .record({
    id: fc.oneof(oddString(40), fc.constantFrom('', ' ', 'c1', 'undefined', 'null', 'c2 ', 'C2')),
    approved: fc.boolean(),
  })
  .map(
    ({ id, approved }) =>
      (v: 'signal' | 'update') =>
        rejected(`id ${JSON.stringify(id.slice(0, 20))}`, v, (p) =>
          json(approvePending({ ...p, id }, { approved: String(approved) })),
        ),
  );

/** Every prototype name as an id, in a random order, each approving or denying, by signal or update. */
const prototypeIds: fc.Arbitrary<DecisionCase> = fc
  .tuple(
    fc.shuffledSubarray(PROTOTYPE_NAMES, { minLength: PROTOTYPE_NAMES.length }),
    fc.array(fc.tuple(fc.boolean(), via), { minLength: PROTOTYPE_NAMES.length, maxLength: PROTOTYPE_NAMES.length }),
  )
  .map(([ids, how]) => {
    const inputs = ids.map((id, i) => {
      const [approved, v] = how[i]!;
      return rejected(`id ${JSON.stringify(id)}, approved ${approved}`, v, (p) =>
        json(approvePending({ ...p, id }, { approved: String(approved) })),
      );
    });
    return {
      cls: 'prototype-ids' as const,
      label: inputs.map((i) => `${i.via} ${i.label}`).join(' · '),
      inputs,
      concurrent: false,
    };
  });

/** One field of up to 1.9 MB (Temporal's payload limit is 2 MB). */
const oversized: fc.Arbitrary<(v: 'signal' | 'update') => HostileDecision> = fc
  .record({
    field: fc.constantFrom(
      'id',
      'approver',
      'reason',
      'argsDigest',
      'approverGroups',
      'member name',
      'member value',
      'denied args',
    ),
    bytes: size(100_000, MAX_PAYLOAD_BYTES - 1_000),
    unit: fc.constantFrom('a', '\u00e9', '\ud83d\udc80', '\u202e', '"'),
  })
  .map(({ field, bytes, unit }) => (v: 'signal' | 'update') => {
    // JSON text of a string of about `bytes` bytes once escaped and encoded.
    const perUnit = Buffer.byteLength(jsonString(unit), 'utf8') - 2;
    const big = jsonString(longText(unit, Math.floor(bytes / perUnit) * unit.length));
    const members: Record<string, (p: Pending) => string> = {
      id: (p) => approvePending(p, { id: big }),
      approver: (p) => approvePending(p, { approver: big }),
      reason: (p) => approvePending(p, { reason: big }),
      argsDigest: (p) => approvePending(p, { argsDigest: big }),
      approverGroups: (p) => approvePending(p, { approverGroups: `[${big}]` }),
      'member name': (p) => approvePending(p, { [JSON.parse(big) as string]: '1' }),
      'member value': (p) => approvePending(p, { note: big }),
      'denied args': (p) => approvePending(p, { approved: 'false', args: `{"path":${big}}` }),
    };
    return rejected(`${field} of ${kb(Buffer.byteLength(big))} (${JSON.stringify(unit)})`, v, (p) =>
      json(members[field]!(p)),
    );
  });

/** Deeply nested JSON in the places a decision has room for it. */
const deep: fc.Arbitrary<(v: 'signal' | 'update') => HostileDecision> = fc
  .record({
    depth: size(1_000, 100_000),
    where: fc.constantFrom(
      'whole payload',
      'id',
      'approved',
      'approverGroups',
      'args (denied)',
      'args member (denied)',
      'unknown member',
    ),
  })
  .map(({ depth, where }) => (v: 'signal' | 'update') => {
    const d = deepJson(depth);
    const build: Record<string, (p: Pending) => string> = {
      'whole payload': () => d,
      id: (p) => approvePending(p, { id: d }),
      approved: (p) => approvePending(p, { approved: d }),
      approverGroups: (p) => approvePending(p, { approverGroups: d }),
      'args (denied)': (p) => approvePending(p, { approved: 'false', args: deepJson(depth, 'object') }),
      'args member (denied)': (p) => approvePending(p, { approved: 'false', args: `{"path":"x","x":${d}}` }),
      'unknown member': (p) => approvePending(p, { deep: d }),
    };
    return rejected(`${where} nested ${depth} deep`, v, (p) => json(build[where]!(p)));
  });

/** Payloads that are not JSON, or not labelled as such: what a raw Temporal client can send. */
const badEncoding: fc.Arbitrary<(v: 'signal' | 'update') => HostileDecision> = fc
  .constantFrom<[string, (p: Pending) => RawPayload]>(
    ['json/plain, not JSON', () => json('{"id":')],
    ['json/plain, empty', () => json('')],
    ['json/plain, NUL', () => json('\u0000')],
    [
      'json/plain, invalid UTF-8',
      () => ({ encoding: 'json/plain', data: Buffer.from([0xff, 0xfe, 0x7b]).toString('base64'), base64: true }),
    ],
    ['binary/plain', (p) => ({ encoding: 'binary/plain', data: approvePending(p, {}) })],
    ['binary/null', () => ({ encoding: 'binary/null', data: '' })],
    ['json/protobuf, garbage', () => ({ encoding: 'json/protobuf', data: '{"x":1}' })],
    ['binary/protobuf, garbage', () => ({ encoding: 'binary/protobuf', data: 'AAEC', base64: true })],
    ['unknown encoding', (p) => ({ encoding: 'fuzz/unknown', data: approvePending(p, {}) })],
    ['no encoding', (p) => ({ encoding: undefined, data: approvePending(p, {}) })],
    ['binary/encrypted, garbage', () => ({ encoding: 'binary/encrypted', data: 'AAEC', base64: true })],
  )
  .map(
    ([label, build]) =>
      (v: 'signal' | 'update') =>
        rejected(label, v, build),
  );

/** What floods are made of. Prototype-named ids have their own class, so a flood that fails fails as a flood. */
const anyRejected = fc.oneof(wrongType, nearMiss, unknownId);

const single = (cls: DecisionClass, arb: fc.Arbitrary<(v: 'signal' | 'update') => HostileDecision>) =>
  fc.array(fc.tuple(arb, via), { minLength: 1, maxLength: 4 }).map((list) => {
    const inputs = list.map(([make, v]) => make(v));
    return { cls, label: inputs.map((i) => `${i.via} ${i.label}`).join(' · '), inputs, concurrent: false };
  });

const floodSignals: fc.Arbitrary<DecisionCase> = fc
  .record({
    small: fc.noBias(fc.array(anyRejected, { minLength: 50, maxLength: 300 })),
    big: fc.noBias(fc.array(oversized, { minLength: 0, maxLength: 3 })),
  })
  .map(({ small, big }) => {
    const inputs = [...small, ...big].map((make) => make('signal'));
    return {
      cls: 'flood-signals' as const,
      label: `${small.length} small + ${big.length} big signals at once`,
      inputs,
      concurrent: true,
    };
  });

const floodUpdates: fc.Arbitrary<DecisionCase> = fc
  .noBias(fc.array(anyRejected, { minLength: 30, maxLength: 120 }))
  .map((list) => ({
    cls: 'flood-updates' as const,
    label: `${list.length} updates at once`,
    inputs: list.map((make) => make('update')),
    concurrent: true,
  }));

const approveEdited: fc.Arbitrary<DecisionCase> = fc
  .record({
    extra: fc.oneof(
      size(1_000, 30_000).map((d) => ({ what: `member nested ${d} deep`, json: deepJson(d) })),
      size(100_000, MAX_PAYLOAD_BYTES - 1_000).map((n) => ({
        what: `member of ${kb(n)}`,
        json: jsonString('e'.repeat(n)),
      })),
      size(1_000, 100_000).map((k) => ({ what: `object of ${k} keys`, json: wideObject(k) })),
      oddString(200).map((s) => ({ what: 'odd unicode member', json: jsonString(s) })),
    ),
    key: fc.oneof(fc.constant('note'), oddString(20)),
    v: via,
  })
  .filter(({ key }) => key !== 'path')
  .map(({ extra, key, v }) => ({
    cls: 'approve-edited-args' as const,
    label: `${v} approve with args {path: decoy, ${extra.what}}`,
    concurrent: false,
    inputs: [
      {
        via: v,
        label: extra.what,
        expect: 'approves' as const,
        payload: (p: Pending) =>
          json(approvePending(p, { args: `{"path":${jsonString(DECOY)},${jsonString(key)}:${extra.json}}` })),
      },
    ],
  }));

export const DECISION_ARBITRARIES: Record<DecisionClass, fc.Arbitrary<DecisionCase>> = {
  'wrong-types': single('wrong-types', wrongType),
  'near-miss': single('near-miss', nearMiss),
  'unknown-ids': single('unknown-ids', unknownId),
  'prototype-ids': prototypeIds,
  'oversized-fields': single('oversized-fields', oversized),
  'deep-json': single('deep-json', deep),
  'bad-encoding': single('bad-encoding', badEncoding),
  'flood-signals': floodSignals,
  'flood-updates': floodUpdates,
  'approve-edited-args': approveEdited,
};
