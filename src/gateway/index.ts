/**
 * The Tiller HTTP gateway: start turns, read their state, follow their events (SSE), decide their
 * pending calls with a verified approver, a signed chat-ops webhook, and a small web inbox.
 * Fastify, zod-validated bodies, an OpenAPI document at /openapi.json. Rate and body-size limits on
 * every route; every error is `{ "error": "..." }` without a stack trace.
 */
import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { registerCodecRoutes } from '../codec/server';
import { HttpError } from './errors';
import { AuthError, bearer, can, IdentityVerifier } from './identity';
import { openApiDocument } from './openapi';
import type { GatewayOptions } from './options';
import { registerRoutes } from './routes';
import { Nudges } from './sse';
import { WebhookVerifier } from './webhook';

export const DEFAULT_RATE_LIMIT = { max: 600, timeWindowMs: 60_000 };
export const DEFAULT_BODY_LIMIT = 64 * 1024;

export async function buildGateway(opts: GatewayOptions): Promise<FastifyInstance> {
  const verifier =
    opts.identities instanceof IdentityVerifier ? opts.identities : new IdentityVerifier(opts.identities);
  const webhook = opts.webhookSecret !== undefined ? new WebhookVerifier(opts.webhookSecret) : undefined;
  const onError =
    opts.onError ?? ((err: unknown) => process.stderr.write(`gateway error: ${(err as Error)?.message ?? err}\n`));
  const app = Fastify({
    bodyLimit: opts.bodyLimit ?? DEFAULT_BODY_LIMIT,
    logger: false,
    trustProxy: opts.trustProxy ?? false,
    // Long-lived SSE responses must not keep close() waiting.
    forceCloseConnections: true,
  });

  app.setErrorHandler((err: { statusCode?: number; message?: string }, _req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    if (status >= 500 && !(err instanceof HttpError)) onError(err);
    const details = err instanceof HttpError ? err.details : undefined;
    void reply.status(status).send({ error: status === 500 ? 'internal error' : (err.message ?? 'error'), ...details });
  });

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

  // A JSON API: only JSON bodies (the webhook route parses its own raw bytes).
  app.removeContentTypeParser('text/plain');
  app.addHook('onRequest', async (_req, reply) => {
    void reply.header('x-content-type-options', 'nosniff').header('cache-control', 'no-store');
  });
  // Authentication runs after the rate limit (route-level onRequest) and before the body is parsed.
  app.addHook('preParsing', async (req, reply, payload) => {
    await authenticate(req, reply);
    return payload;
  });
  const authenticate = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (req.method === 'OPTIONS') return;
    const config = req.routeOptions.config;
    if (config.public || !req.routeOptions.url) return; // unknown routes fall through to 404
    const query = config.queryToken ? (req.query as { access_token?: unknown }).access_token : undefined;
    const credential = bearer(req.headers.authorization, typeof query === 'string' ? query : undefined);
    try {
      req.identity = await verifier.verify(credential);
    } catch (err) {
      if (err instanceof AuthError) {
        return reply
          .status(err.statusCode)
          .header('www-authenticate', 'Bearer realm="tiller"')
          .send({ error: err.message });
      }
      throw err;
    }
    if (config.scope && !can(req.identity, config.scope)) {
      return reply
        .status(403)
        .send({ error: `${req.identity.name} may not ${config.scope === 'read' ? 'read turns' : config.scope}` });
    }
  };

  app.setNotFoundHandler(limit ? { preHandler: app.rateLimit() } : {}, async (req, reply) =>
    reply.status(404).send({ error: `no route ${req.method} ${req.url.split('?')[0]}` }),
  );

  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort());
  let doc: Record<string, unknown> | undefined;
  const settled = registerRoutes(app, {
    tiller: opts.tiller,
    ...(webhook && { webhook }),
    nudges: new Nudges(),
    openapi: () =>
      (doc ??= openApiDocument({
        version: opts.version ?? '0.0.0',
        webhook: webhook !== undefined,
        codec: !!opts.codec,
      })),
    queryTimeoutMs: opts.queryTimeoutMs ?? 10_000,
    decideTimeoutMs: opts.decideTimeoutMs ?? 30_000,
    stream: {
      ...(opts.stream?.minIntervalMs !== undefined && { minIntervalMs: opts.stream.minIntervalMs }),
      ...(opts.stream?.maxIntervalMs !== undefined && { maxIntervalMs: opts.stream.maxIntervalMs }),
      ...(opts.stream?.heartbeatMs !== undefined && { heartbeatMs: opts.stream.heartbeatMs }),
    },
    maxStreams: opts.stream?.maxStreams ?? 200,
    closing: closing.signal,
  });
  if (opts.codec) registerCodecRoutes(app, opts.codec, { config: { scope: 'codec' } });
  else {
    app.post('/codec/:op', { config: { scope: 'codec' } }, async (_req, reply) =>
      reply
        .status(404)
        .send({ error: 'payload encryption is not configured on this gateway (TILLER_ENCRYPTION_KEYS)' }),
    );
  }
  // Streams end on preClose; wait for what is still in flight so nothing outlives the gateway.
  app.addHook('onClose', async () => settled());
  return app;
}

export { hashToken, IdentityVerifier, SCOPES, type Identity, type IdentityConfig, type Scope } from './identity';
export { signWebhook, WebhookVerifier } from './webhook';
export { identitiesFromEnv, gatewayOptionsFromEnv } from './env';
export type { GatewayOptions } from './options';
