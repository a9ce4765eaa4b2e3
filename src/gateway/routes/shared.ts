/** What every route module gets: the gateway's dependencies, and zod validation of a request part. */
import type { z } from 'zod';
import type { TillerClient } from '../../client';
import { formatZodError } from '../../core/schemas';
import type { SlackGatewayOptions } from '../../slack/common/config';
import { HttpError } from '../errors';
import type { Nudges } from '../sse';
import type { WebhookVerifier } from '../webhook';

export interface RouteDeps {
  tiller: TillerClient;
  webhook?: WebhookVerifier;
  /** Slack interactivity (POST /slack/interactions), when configured. */
  slack?: SlackGatewayOptions;
  nudges: Nudges;
  openapi: () => Record<string, unknown>;
  queryTimeoutMs: number;
  decideTimeoutMs: number;
  stream: { minIntervalMs?: number; maxIntervalMs?: number; heartbeatMs?: number };
  /** Open SSE streams at most, over all clients … */
  maxStreams: number;
  /** … and per caller (identity). */
  maxStreamsPerCaller: number;
  /** Aborted when the gateway closes: ends every open stream. */
  closing: AbortSignal;
}

/** The value if it matches the schema; else an HttpError (422 by default: a body) with zod's message. */
export function parse<S extends z.ZodType>(schema: S, value: unknown, status = 422): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new HttpError(status, formatZodError(parsed.error));
  return parsed.data;
}
