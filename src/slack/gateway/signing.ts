/**
 * Slack's request signing, version 0 (https://api.slack.com/authentication/verifying-requests-from-slack):
 *
 *   X-Slack-Request-Timestamp: <unix seconds>
 *   X-Slack-Signature: v0=<hex HMAC-SHA256(signing secret, `v0:${timestamp}:${raw body}`)>
 *
 * A request is accepted when the signature matches (constant-time compare), the timestamp is within
 * 5 minutes of now, and the same signature has not been accepted before while it could still be valid
 * (a replay is refused).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SLACK_TIMESTAMP_HEADER = 'x-slack-request-timestamp';
export const SLACK_SIGNATURE_HEADER = 'x-slack-signature';
export const SLACK_WINDOW_MS = 5 * 60 * 1000;

export type SlackSignatureCheck = { type: 'verified' } | { type: 'refused'; status: 401 | 409; reason: string };

/** The `X-Slack-Signature` value for a body, as Slack computes it. */
export function signSlackRequest(secret: string, timestamp: number | string, rawBody: string | Buffer): string {
  const mac = createHmac('sha256', secret).update(`v0:${timestamp}:`).update(rawBody).digest('hex');
  return `v0=${mac}`;
}

export class SlackRequestVerifier {
  private readonly seen = new Map<string, number>();
  private readonly now: () => number;
  private readonly maxRemembered: number;

  constructor(
    private readonly secret: string,
    opts: { now?: () => number; maxRemembered?: number } = {},
  ) {
    if (Buffer.byteLength(secret) < 16) throw new Error('the Slack signing secret must be at least 16 bytes');
    this.now = opts.now ?? Date.now;
    this.maxRemembered = opts.maxRemembered ?? 100_000;
  }

  check(timestamp: string | undefined, signature: string | undefined, rawBody: Buffer): SlackSignatureCheck {
    if (!timestamp || !signature) {
      return refused(401, `${SLACK_TIMESTAMP_HEADER} and ${SLACK_SIGNATURE_HEADER} headers are required`);
    }
    if (!/^\d{1,12}$/.test(timestamp)) return refused(401, 'bad timestamp');
    const presented = /^v0=([0-9a-fA-F]{64})$/.exec(signature.trim())?.[1];
    const expected = Buffer.from(signSlackRequest(this.secret, timestamp, rawBody).slice('v0='.length), 'hex');
    // A malformed signature is compared too (against zeros), so its shape costs the same time.
    const given = presented ? Buffer.from(presented, 'hex') : Buffer.alloc(expected.length);
    if (!(timingSafeEqual(given, expected) && presented !== undefined)) return refused(401, 'bad signature');
    const now = this.now();
    if (Math.abs(now - Number(timestamp) * 1000) > SLACK_WINDOW_MS) {
      return refused(401, 'timestamp outside the 5-minute window');
    }
    this.prune(now);
    const key = expected.toString('hex');
    if (this.seen.has(key)) return refused(409, 'replayed request: this signature was used');
    if (this.seen.size >= this.maxRemembered) return refused(409, 'too many signed requests in the window');
    // Remembered until the timestamp leaves the window; after that the request is refused as old.
    this.seen.set(key, Number(timestamp) * 1000 + SLACK_WINDOW_MS);
    return { type: 'verified' };
  }

  private prune(now: number): void {
    for (const [key, until] of this.seen) if (until < now) this.seen.delete(key);
  }
}

function refused(status: 401 | 409, reason: string): SlackSignatureCheck {
  return { type: 'refused', status, reason };
}
