import type { Payload } from '@temporalio/common';
import { REFUSED_PAYLOAD_KEY } from '../../src/core/failures';
import { PayloadGuardCodec, withPayloadGuard } from '../../src/codec/guard';

const utf8 = new TextEncoder();
const payload = (encoding: string | undefined, data: string | Uint8Array): Payload => ({
  metadata: encoding === undefined ? {} : { encoding: utf8.encode(encoding) },
  data: typeof data === 'string' ? utf8.encode(data) : data,
});
const read = (p: { data?: Uint8Array | null }) => JSON.parse(new TextDecoder().decode(p.data!));

test('readable payloads pass untouched; unreadable ones become a refusal saying why', async () => {
  const guard = new PayloadGuardCodec();
  const ok = [payload('json/plain', '{"id":"a"}'), payload('binary/null', ''), payload('binary/plain', 'x')];
  expect(await guard.decode(ok)).toEqual(ok);
  const [notJson, unknown, none, notUtf8] = await guard.decode([
    payload('json/plain', '{"id":'),
    payload('json/protobuf', 'x'),
    payload(undefined, '{}'),
    payload('json/plain', new Uint8Array([0x22, 0xff, 0x22])),
  ]);
  expect(read(notJson!)[REFUSED_PAYLOAD_KEY]).toMatch(/not valid JSON/);
  expect(read(unknown!)[REFUSED_PAYLOAD_KEY]).toMatch(/"json\/protobuf" is not accepted/);
  expect(read(none!)[REFUSED_PAYLOAD_KEY]).toMatch(/no encoding/);
  expect(read(notUtf8!)[REFUSED_PAYLOAD_KEY]).toMatch(/not UTF-8/);
});

test('the refusal is bounded whatever the encoding name', async () => {
  const [p] = await new PayloadGuardCodec().decode([payload('x'.repeat(1_000_000), 'y')]);
  expect(p!.data!.length).toBeLessThan(300);
});

test('withPayloadGuard decodes last, once, and lets a custom converter read its own encodings', () => {
  const other = { encode: async (p: Payload[]) => p, decode: async (p: Payload[]) => p };
  const guarded = withPayloadGuard({ payloadCodecs: [other] });
  expect(guarded.payloadCodecs![0]).toBeInstanceOf(PayloadGuardCodec);
  expect(guarded.payloadCodecs![1]).toBe(other);
  expect(withPayloadGuard(guarded)).toBe(guarded);
  return withPayloadGuard({ payloadConverterPath: '/x.js' })
    .payloadCodecs![0]!.decode([payload('json/protobuf', 'x')])
    .then(([p]) => expect(new TextDecoder().decode(p!.metadata!.encoding!)).toBe('json/protobuf'));
});
