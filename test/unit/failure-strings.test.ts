/** src/codec/failure-strings.ts: every string of a failure well-formed, messages and stacks bounded. */
import { ApplicationFailure, defaultPayloadConverter, type ProtoFailure } from '@temporalio/common';
import { FAILURE_TEXT_BOUNDS, WellFormedFailureConverter, wellFormedFailure } from '../../src/codec/failure-strings';
import { failureConverter as encoding } from '../../src/codec/failures';

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (value && typeof value === 'object' && !(value instanceof Uint8Array)) {
    for (const v of Object.values(value)) strings(v, out);
  }
  return out;
}

test('message, stack, type and every cause of a failure come out well-formed; pairs are kept', () => {
  const inner = new Error('inner \udc00');
  const err = ApplicationFailure.create({ type: 'T\ud800', message: 'outer \ud800 😀', cause: inner });
  err.stack = 'stack \ud801 at x';
  const failure = new WellFormedFailureConverter().errorToFailure(err, defaultPayloadConverter);
  const all = strings(failure);
  expect(all.length).toBeGreaterThan(4);
  expect(all.filter((s) => LONE.test(s))).toEqual([]);
  expect(failure.message).toBe('outer \ufffd 😀');
  expect(failure.applicationFailureInfo?.type).toBe('T\ufffd');
  expect(failure.cause?.message).toBe('inner \ufffd');
});

test('messages and stack traces are clipped to their bounds, with a marker', () => {
  const err = new Error('m'.repeat(100_000));
  err.stack = 's'.repeat(100_000);
  const failure = new WellFormedFailureConverter().errorToFailure(err, defaultPayloadConverter);
  expect(failure.message!.length).toBeLessThanOrEqual(FAILURE_TEXT_BOUNDS.get('message')!);
  expect(failure.message).toContain('clipped by Tiller: 100000 characters');
  expect(failure.stackTrace!.length).toBeLessThanOrEqual(FAILURE_TEXT_BOUNDS.get('stackTrace')!);
});

test('the encoding converter encodes the fixed message, not the raw one', () => {
  const failure = encoding.errorToFailure(new Error('x \ud800'), defaultPayloadConverter);
  expect(failure.message).toBe('Encoded failure');
  const decoded = defaultPayloadConverter.fromPayload<{ message: string }>(failure.encodedAttributes!);
  expect(decoded.message).toBe('x \ufffd');
});

test('payload bytes are left alone, prototype-named keys are only text, and a cycle ends', () => {
  const data = new Uint8Array([0xed, 0xa0, 0x80]);
  const failure = {
    message: '\ud800',
    constructor: 'c\udfff',
    applicationFailureInfo: { details: { payloads: [{ metadata: {}, data }] } },
  } as unknown as ProtoFailure & { self?: unknown };
  failure.self = failure;
  wellFormedFailure(failure);
  expect(failure.message).toBe('\ufffd');
  expect((failure as unknown as { constructor: string }).constructor).toBe('c\ufffd');
  expect(failure.applicationFailureInfo!.details!.payloads![0]!.data).toBe(data);
  expect([...data]).toEqual([0xed, 0xa0, 0x80]);
});
