/**
 * The options of `buildGateway` (index.ts). A module of their own: env.ts, which reads most of them from the
 * environment, needs their type without importing the gateway.
 */
import type { PayloadCodec } from '@temporalio/common';
import type { TillerClient } from '../client';
import type { SlackGatewayOptions } from '../slack/common/config';
import type { IdentityConfig, IdentityVerifier } from './identity';

export interface GatewayOptions {
  tiller: TillerClient;
  /** Token identities (SHA-256 hashes) and/or a JWT key; or a ready verifier. */
  identities: IdentityConfig | IdentityVerifier;
  /** Enables POST /webhooks/decision with HMAC-SHA256 signatures under this secret. */
  webhookSecret?: string;
  /** Requests per window per client address (default 600 a minute); `false` turns it off. */
  rateLimit?: { max: number; timeWindowMs: number } | false;
  /** An origin allowed by CORS (e.g. a separate web app); same-origin needs none. */
  uiOrigin?: string;
  /** Largest accepted body in bytes (default 64 KiB). */
  bodyLimit?: number;
  /** Deadline of a `state` query / visibility list (default 10 s) and of a decision (default 30 s). */
  queryTimeoutMs?: number;
  decideTimeoutMs?: number;
  /**
   * SSE polling: fastest and slowest interval, heartbeat comment interval; open streams at most
   * (default 200), and per caller (default 10).
   */
  stream?: {
    minIntervalMs?: number;
    maxIntervalMs?: number;
    heartbeatMs?: number;
    maxStreams?: number;
    maxStreamsPerCaller?: number;
  };
  /** Trust X-Forwarded-For (behind a reverse proxy) for rate limiting. */
  trustProxy?: boolean;
  /**
   * Serves POST /codec/encode and /codec/decode (the Temporal UI's codec server protocol) with this
   * codec, to identities with the `codec` right; `tiller serve` passes the TILLER_ENCRYPTION_KEYS codec.
   */
  codec?: PayloadCodec;
  /** Enables POST /slack/interactions: Approve / Deny from Slack (see src/slack). */
  slack?: SlackGatewayOptions;
  /** Reported in the OpenAPI document. */
  version?: string;
  /** Called with unexpected (5xx) errors; default: one line on stderr. */
  onError?: (err: unknown) => void;
}
