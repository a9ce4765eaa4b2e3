/**
 * The worker's payload guard: any Temporal client can send a turn a payload that Temporal's default
 * converter cannot read (`json/plain` that is not JSON, an encoding it does not know, such as
 * `json/protobuf`). The converter runs inside the workflow, so such a payload fails the workflow task
 * — and the retry fails the same way, forever: the turn is wedged by one signal. This codec decodes
 * such a payload into `{ tillerRefusedPayload: "<why>" }` instead, which every Tiller schema refuses
 * (a decision is rejected and recorded bounded, a turn input is invalid, a query argument fails).
 *
 * It runs last on decode (first in the codec list), after decryption, and costs one `JSON.parse` per
 * `json/plain` payload the worker receives.
 */
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import { REFUSED_PAYLOAD_KEY } from '../core/failures';

const utf8 = new TextEncoder();
const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The encodings Temporal's default payload converter reads. */
export const DEFAULT_ENCODINGS: ReadonlySet<string> = new Set(['binary/null', 'binary/plain', 'json/plain']);

/** A `json/plain` payload carrying the refusal marker (what the schemas refuse, with this reason). */
export function refusedPayloadOf(why: string): Payload {
  return {
    metadata: { encoding: utf8.encode('json/plain') },
    data: utf8.encode(JSON.stringify({ [REFUSED_PAYLOAD_KEY]: why })),
  };
}

export interface PayloadGuardOptions {
  /**
   * Encodings let through unchecked besides the default converter's, for a worker with its own
   * payload converter; `'*'` lets every encoding through (only `json/plain` is then checked).
   */
  allowEncodings?: readonly string[];
}

export class PayloadGuardCodec implements PayloadCodec {
  private readonly allowAny: boolean;
  private readonly allowed: Set<string>;

  constructor(options: PayloadGuardOptions = {}) {
    this.allowAny = options.allowEncodings?.includes('*') ?? false;
    this.allowed = new Set([...DEFAULT_ENCODINGS, ...(options.allowEncodings ?? [])]);
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads;
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const why = unreadable(payload, this.allowAny ? undefined : this.allowed);
      return why === undefined ? payload : refusedPayloadOf(why);
    });
  }
}

/** Why the default converter could not read `payload`, or undefined when it can. */
function unreadable(payload: Payload, allowed: ReadonlySet<string> | undefined): string | undefined {
  const raw = payload.metadata?.encoding;
  if (!raw) return 'the payload has no encoding';
  let encoding: string;
  try {
    encoding = fatalUtf8.decode(raw);
  } catch {
    return 'the payload encoding is not UTF-8';
  }
  if (allowed && !allowed.has(encoding))
    return `the payload encoding ${JSON.stringify(encoding.slice(0, 60))} is not accepted`;
  if (encoding !== 'json/plain') return undefined;
  let text: string;
  try {
    text = fatalUtf8.decode(payload.data ?? new Uint8Array());
  } catch {
    return 'the json/plain payload is not UTF-8';
  }
  try {
    JSON.parse(text);
    return undefined;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return `the json/plain payload is not valid JSON (${reason.slice(0, 120)})`;
  }
}

/**
 * `converter` with the guard as its last decoding step; a worker's converter with a custom payload
 * converter lets every encoding through (that converter decides what it reads) and checks only JSON.
 * Workers and replayers both need it: a history with a refused payload replays only through the guard.
 */
export function withPayloadGuard(converter: DataConverter = {}): DataConverter {
  if (converter.payloadCodecs?.[0] instanceof PayloadGuardCodec) return converter;
  const guard = new PayloadGuardCodec(converter.payloadConverterPath ? { allowEncodings: ['*'] } : {});
  return { ...converter, payloadCodecs: [guard, ...(converter.payloadCodecs ?? [])] };
}
