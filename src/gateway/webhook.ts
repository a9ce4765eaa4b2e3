/**
 * Chat-ops webhook signatures (the scheme chat platforms use for approve/deny buttons):
 *
 *   X-Tiller-Timestamp: <unix seconds>
 *   X-Tiller-Signature: sha256=<hex HMAC-SHA256(secret, `${timestamp}.${rawBody}`)>
 *
 * A request is accepted when the signature matches (constant-time compare), the timestamp is within
 * the window (5 minutes either way) and the same signature has not been seen within the window
 * (replays are rejected; signatures are remembered for as long as they could be valid).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const TIMESTAMP_HEADER = 'x-tiller-timestamp';
export const SIGNATURE_HEADER = 'x-tiller-signature';
export const WEBHOOK_WINDOW_MS = 5 * 60 * 1000;
/** The prefix of an approver named in a signed webhook body. */
export const WEBHOOK_APPROVER_PREFIX = 'webhook:';

export type WebhookCheck = { type: 'verified' } | { type: 'refused'; status: 401 | 409; reason: string };

/** The signature header value for a body, as a sender computes it. */
export function signWebhook(secret: string, timestamp: number | string, rawBody: string | Buffer): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
  return `sha256=${mac}`;
}

export class WebhookVerifier {
  private readonly seen = new Map<string, number>();
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly maxRemembered: number;

  constructor(
    private readonly secret: string,
    opts: { windowMs?: number; now?: () => number; maxRemembered?: number } = {},
  ) {
    if (Buffer.byteLength(secret) < 16) throw new Error('the webhook secret must be at least 16 bytes');
    this.windowMs = opts.windowMs ?? WEBHOOK_WINDOW_MS;
    this.now = opts.now ?? Date.now;
    this.maxRemembered = opts.maxRemembered ?? 100_000;
  }

  check(timestamp: string | undefined, signature: string | undefined, rawBody: Buffer): WebhookCheck {
    if (!timestamp || !signature) {
      return {
        type: 'refused',
        status: 401,
        reason: `${TIMESTAMP_HEADER} and ${SIGNATURE_HEADER} headers are required`,
      };
    }
    if (!/^\d{1,12}$/.test(timestamp)) return { type: 'refused', status: 401, reason: 'bad timestamp' };
    const presented = /^sha256=([0-9a-fA-F]{64})$/.exec(signature.trim())?.[1];
    const expected = Buffer.from(signWebhook(this.secret, timestamp, rawBody).slice('sha256='.length), 'hex');
    // Compare even a malformed signature (against zeros), so its shape costs the same time.
    const given = presented ? Buffer.from(presented, 'hex') : Buffer.alloc(expected.length);
    const matches = timingSafeEqual(given, expected) && presented !== undefined;
    if (!matches) return { type: 'refused', status: 401, reason: 'bad signature' };
    const now = this.now();
    if (Math.abs(now - Number(timestamp) * 1000) > this.windowMs) {
      return { type: 'refused', status: 401, reason: 'timestamp outside the 5-minute window' };
    }
    this.prune(now);
    const key = expected.toString('hex');
    if (this.seen.has(key))
      return { type: 'refused', status: 409, reason: 'replayed request: this signature was used' };
    if (this.seen.size >= this.maxRemembered) {
      return { type: 'refused', status: 409, reason: 'too many signed requests in the window; try again later' };
    }
    // Remembered until the timestamp leaves the window: after that the signature is rejected as old.
    this.seen.set(key, Number(timestamp) * 1000 + this.windowMs);
    return { type: 'verified' };
  }

  private prune(now: number): void {
    for (const [key, until] of this.seen) if (until < now) this.seen.delete(key);
  }
}
