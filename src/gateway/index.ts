/**
 * The Tiller HTTP gateway: start turns, read their state, follow their events (SSE), decide their
 * pending calls with a verified approver, a signed chat-ops webhook, and a small web inbox.
 * Fastify, zod-validated bodies, an OpenAPI document at /openapi.json. Rate and body-size limits on
 * every route; every error is `{ "error": "..." }` without a stack trace.
 */
import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerCodecRoutes } from '../codec/server';
import { installAuthentication } from './auth';
import { HttpError } from './errors';
import { IdentityVerifier } from './identity';
import { openApiDocument } from './openapi';
import type { GatewayOptions } from './options';
import { registerRoutes, type RouteDeps } from './routes';
import { Nudges } from './sse';
import { WebhookVerifier } from './webhook';

export const DEFAULT_RATE_LIMIT = { max: 600, timeWindowMs: 60_000 };
export const DEFAULT_BODY_LIMIT = 64 * 1024;
export const DEFAULT_MAX_STREAMS = 200;
export const DEFAULT_MAX_STREAMS_PER_CALLER = 10;

export async function buildGateway(opts: GatewayOptions): Promise<FastifyInstance> {
  const verifier =
    opts.identities instanceof IdentityVerifier ? opts.identities : new IdentityVerifier(opts.identities);
  const webhook = opts.webhookSecret !== undefined ? new WebhookVerifier(opts.webhookSecret) : undefined;
  const app = Fastify({
    bodyLimit: opts.bodyLimit ?? DEFAULT_BODY_LIMIT,
    logger: false,
    trustProxy: opts.trustProxy ?? false,
    // Long-lived SSE responses must not keep close() waiting.
    forceCloseConnections: true,
  });
  installErrorHandler(app, opts.onError);
  const limited = await registerLimits(app, opts);

  // A JSON API: only JSON bodies (the webhook route parses its own raw bytes).
  app.removeContentTypeParser('text/plain');
  app.addHook('onRequest', async (_req, reply) => {
    void reply.header('x-content-type-options', 'nosniff').header('cache-control', 'no-store');
  });
  installAuthentication(app, verifier);
  app.setNotFoundHandler(limited ? { preHandler: app.rateLimit() } : {}, async (req, reply) =>
    reply.status(404).send({ error: `no route ${req.method} ${req.url.split('?')[0]}` }),
  );

  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort());
  const settled = registerRoutes(app, routeDeps(opts, webhook, closing.signal));
  registerCodec(app, opts);
  // Streams end on preClose; wait for what is still in flight so nothing outlives the gateway.
  app.addHook('onClose', async () => settled());
  return app;
}

/** Every error answers `{ "error": "..." }`; unexpected ones (5xx) go to `onError` and read "internal error". */
function installErrorHandler(app: FastifyInstance, onError?: (err: unknown) => void): void {
  const report =
    onError ?? ((err: unknown) => process.stderr.write(`gateway error: ${(err as Error)?.message ?? err}\n`));
  app.setErrorHandler((err: { statusCode?: number; message?: string }, _req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    if (status >= 500 && !(err instanceof HttpError)) report(err);
    const details = err instanceof HttpError ? err.details : undefined;
    void reply.status(status).send({ error: status === 500 ? 'internal error' : (err.message ?? 'error'), ...details });
  });
}

/** The rate limit (unless turned off) and CORS; returns whether requests are rate limited. */
async function registerLimits(app: FastifyInstance, opts: GatewayOptions): Promise<boolean> {
  const limit = opts.rateLimit === undefined ? DEFAULT_RATE_LIMIT : opts.rateLimit;
  if (limit) {
    await app.register(rateLimit, {
      global: true,
      max: limit.max,
      timeWindow: limit.timeWindowMs,
      errorResponseBuilder: (_req, ctx) => ({
        statusCode: 429,
        error: 'Too Many Requests',
        message: `rate limit exceeded: retry in ${ctx.after}`,
      }),
    });
  }
  await app.register(cors, {
    origin: opts.uiOrigin ? [opts.uiOrigin] : false,
    methods: ['GET', 'POST', 'OPTIONS'],
    // X-Namespace and credentials: the Temporal UI calling /codec/* with "pass access token".
    allowedHeaders: ['Authorization', 'Content-Type', 'Last-Event-ID', 'Idempotency-Key', 'X-Namespace'],
    credentials: true,
  });
  return !!limit;
}

function routeDeps(opts: GatewayOptions, webhook: WebhookVerifier | undefined, closing: AbortSignal): RouteDeps {
  let doc: Record<string, unknown> | undefined;
  return {
    tiller: opts.tiller,
    ...(webhook && { webhook }),
    ...(opts.slack && { slack: opts.slack }),
    nudges: new Nudges(),
    openapi: () =>
      (doc ??= openApiDocument({
        version: opts.version ?? '0.0.0',
        webhook: webhook !== undefined,
        codec: !!opts.codec,
        slack: !!opts.slack,
      })),
    queryTimeoutMs: opts.queryTimeoutMs ?? 10_000,
    decideTimeoutMs: opts.decideTimeoutMs ?? 30_000,
    stream: {
      ...(opts.stream?.minIntervalMs !== undefined && { minIntervalMs: opts.stream.minIntervalMs }),
      ...(opts.stream?.maxIntervalMs !== undefined && { maxIntervalMs: opts.stream.maxIntervalMs }),
      ...(opts.stream?.heartbeatMs !== undefined && { heartbeatMs: opts.stream.heartbeatMs }),
    },
    maxStreams: opts.stream?.maxStreams ?? DEFAULT_MAX_STREAMS,
    maxStreamsPerCaller: opts.stream?.maxStreamsPerCaller ?? DEFAULT_MAX_STREAMS_PER_CALLER,
    closing,
  };
}

/** POST /codec/encode and /codec/decode with the gateway's codec; without one, a 404 that says so. */
function registerCodec(app: FastifyInstance, opts: GatewayOptions): void {
  if (opts.codec) {
    registerCodecRoutes(app, opts.codec, { config: { scope: 'codec' } });
    return;
  }
  app.post('/codec/:op', { config: { scope: 'codec' } }, async (_req, reply) =>
    reply.status(404).send({ error: 'payload encryption is not configured on this gateway (TILLER_ENCRYPTION_KEYS)' }),
  );
}

export { hashToken, IdentityVerifier, SCOPES, type Identity, type IdentityConfig, type Scope } from './identity';
export { signWebhook, WebhookVerifier } from './webhook';
export { identitiesFromEnv, gatewayOptionsFromEnv } from './env';
export type { GatewayOptions } from './options';
