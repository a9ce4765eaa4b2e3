/**
 * A Temporal client that sends payloads exactly as the fuzz wrote them: any JSON text (however deep:
 * the test never parses or stringifies it), invalid JSON, or any encoding — what any SDK or the
 * `temporal` CLI can send a turn. A marker value is swapped for its raw payload by a codec.
 */
import { Client, type ConnectionLike } from '@temporalio/client';
import type { Payload, PayloadCodec } from '@temporalio/common';

/** A payload to send as is: `data` bytes under `encoding` (no `encoding` metadata when undefined). */
export interface RawPayload {
  encoding: string | undefined;
  data: string;
  /** How `data` is written: UTF-8 text (default) or base64 bytes. */
  base64?: boolean;
}

const MARK = '__tillerFuzzRaw';

/** The value to pass to `signal` / `executeUpdate`: the codec replaces it with the raw payload. */
export const raw = (p: RawPayload): unknown => ({ [MARK]: p });

/** JSON text as a `json/plain` payload. */
export const rawJson = (text: string): unknown => raw({ encoding: 'json/plain', data: text });

export const rawPayloadBytes = (p: RawPayload): number =>
  p.base64 ? Buffer.from(p.data, 'base64').length : Buffer.byteLength(p.data, 'utf8');

const utf8 = new TextEncoder();

const rawCodec: PayloadCodec = {
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload): Payload => {
      const text = payload.data ? Buffer.from(payload.data).toString('utf8') : '';
      if (!text.startsWith(`{"${MARK}":`)) return payload;
      const p = (JSON.parse(text) as Record<string, RawPayload>)[MARK]!;
      const metadata: Record<string, Uint8Array> = {};
      if (p.encoding !== undefined) metadata.encoding = utf8.encode(p.encoding);
      return {
        metadata,
        data: p.base64 ? Buffer.from(p.data, 'base64') : utf8.encode(p.data),
      };
    });
  },
  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads;
  },
};

export function rawClient(connection: ConnectionLike): Client {
  return new Client({ connection, dataConverter: { payloadCodecs: [rawCodec] } });
}
