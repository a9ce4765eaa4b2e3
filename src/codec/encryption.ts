/**
 * AES-256-GCM payload encryption: a Temporal `PayloadCodec` that encrypts every payload (inputs,
 * results, activity arguments, update payloads, summaries, failures' messages via ./failures) before it
 * leaves the process. The key id travels in the payload metadata so several keys can decode while the
 * newest encodes (rotation).
 * Search attributes are not payloads and are never encrypted: keep only ids and coarse status in them.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { REFUSED_PAYLOAD_KEY } from '../core/failures';
import { ENCODED_FAILURES_PATH } from './encoded-failures';
import { refusedPayloadOf } from './guard';

export const ENCODING = 'binary/encrypted';
export const METADATA_KEY_ID = 'encryption-key-id';
export const METADATA_CIPHER = 'encryption-cipher';
const CIPHER = 'AES-256-GCM';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface EncryptionKey {
  id: string;
  /** 32 bytes. */
  key: Uint8Array;
}

const text = (s: string) => new TextEncoder().encode(s);
const str = (b: Uint8Array | null | undefined) => (b ? new TextDecoder().decode(b) : undefined);

/**
 * What a worker that requires encryption decodes a plaintext or undecryptable payload into: a value
 * every Tiller schema refuses with this reason (a decision is rejected and recorded, a turn input is
 * invalid), instead of acting on it — or failing the workflow task over and over on a bad key.
 */
export { REFUSED_PAYLOAD_KEY };

export interface AesGcmCodecOptions {
  /**
   * Decode only what was encrypted with a known key (workers, by default when keys are set): a
   * plaintext payload from a client without the key, or one that does not decrypt, becomes
   * `{ tillerRefusedPayload: "<why>" }`. Off for clients and the codec server, which show what they get.
   */
  requireEncryption?: boolean;
}

export class AesGcmCodec implements PayloadCodec {
  private readonly byId: Map<string, Uint8Array>;
  private readonly encodeWith: EncryptionKey;

  /** `keys[0]` encodes; every key decodes. */
  constructor(
    keys: readonly EncryptionKey[],
    private readonly options: AesGcmCodecOptions = {},
  ) {
    if (keys.length === 0) throw new Error('AesGcmCodec needs at least one key');
    for (const k of keys) {
      if (k.key.length !== 32) throw new Error(`encryption key ${k.id} must be 32 bytes, not ${k.key.length}`);
    }
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
    this.encodeWith = keys[0]!;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', this.encodeWith.key, iv);
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const body = Buffer.concat([cipher.update(plain), cipher.final()]);
      return {
        metadata: {
          encoding: text(ENCODING),
          [METADATA_KEY_ID]: text(this.encodeWith.id),
          [METADATA_CIPHER]: text(CIPHER),
        },
        data: Buffer.concat([iv, body, cipher.getAuthTag()]),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (!this.options.requireEncryption) return this.decodeOne(payload);
      if (str(payload.metadata?.encoding) !== ENCODING)
        return refusedPayloadOf('the payload was not encrypted; this worker requires encrypted payloads');
      try {
        return this.decodeOne(payload);
      } catch (err) {
        return refusedPayloadOf(
          `the payload could not be decrypted (${err instanceof Error ? err.message : String(err)})`,
        );
      }
    });
  }

  private decodeOne(payload: Payload): Payload {
    if (str(payload.metadata?.encoding) !== ENCODING) return payload;
    const keyId = str(payload.metadata?.[METADATA_KEY_ID]);
    const key = keyId === undefined ? undefined : this.byId.get(keyId);
    if (!key) throw new Error(`payload encrypted with unknown key id ${(keyId ?? '(none)').slice(0, 100)}`);
    const data = Buffer.from(payload.data ?? []);
    const iv = data.subarray(0, IV_BYTES);
    const tag = data.subarray(data.length - TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAuthTag(tag);
    const plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    return temporal.api.common.v1.Payload.decode(plain);
  }
}

/**
 * Keys from `TILLER_ENCRYPTION_KEYS`: comma-separated `id:base64key`, newest first (it encodes;
 * the others still decode). Unset → no encryption (the local demo).
 */
export function keysFromEnv(env: NodeJS.ProcessEnv = process.env): EncryptionKey[] {
  const raw = env.TILLER_ENCRYPTION_KEYS?.trim();
  if (!raw) return [];
  return raw.split(',').map((entry) => {
    const at = entry.indexOf(':');
    if (at <= 0) throw new Error('TILLER_ENCRYPTION_KEYS entries must look like <id>:<base64 of 32 bytes>');
    const id = entry.slice(0, at).trim();
    const key = Buffer.from(entry.slice(at + 1).trim(), 'base64');
    if (key.length !== 32) throw new Error(`TILLER_ENCRYPTION_KEYS: key ${id} is ${key.length} bytes, expected 32`);
    return { id, key };
  });
}

/**
 * The data converter for clients, workers and the gateway alike; `undefined` when encryption is off.
 * Workers pass `{ requireEncryption: true }` unless `TILLER_ALLOW_PLAINTEXT=1` (see `AesGcmCodecOptions`).
 * Failures' messages and stack traces go into their encoded attributes, which the codec encrypts
 * (`./failures`); a worker bundling at start puts that converter in the bundle too.
 */
export function dataConverterFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  options: AesGcmCodecOptions = {},
): DataConverter | undefined {
  const keys = keysFromEnv(env);
  return keys.length
    ? { payloadCodecs: [new AesGcmCodec(keys, options)], failureConverterPath: ENCODED_FAILURES_PATH }
    : undefined;
}

/**
 * `err` explained when it is a client without the key reading an encrypted payload or failure (the SDK
 * says only `Unknown encoding: binary/encrypted`); undefined for any other error.
 */
export function keylessError(err: unknown): Error | undefined {
  if (!(err instanceof Error) || !err.message.includes(`Unknown encoding: ${ENCODING}`)) return undefined;
  return new Error(
    'the answer is encrypted and this client has no key to read it (set TILLER_ENCRYPTION_KEYS as the worker does)',
    { cause: err },
  );
}

/** A worker's codec options from the env: encryption required when keys are set, unless explicitly allowed. */
export function workerCodecOptions(env: NodeJS.ProcessEnv = process.env): AesGcmCodecOptions {
  return { requireEncryption: env.TILLER_ALLOW_PLAINTEXT !== '1' };
}
