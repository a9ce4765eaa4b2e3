/**
 * A codec server (the Temporal UI's and CLI's `--codec-endpoint` protocol): POST /codec/encode and
 * /codec/decode with `{ "payloads": [{ "metadata": {k: base64}, "data": base64 }] }`. Behind a bearer
 * token, CORS limited to the configured UI origin, body-size limited, no stack traces in responses.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import cors from '@fastify/cors';
import type { Payload, PayloadCodec } from '@temporalio/common';
import Fastify, { type FastifyInstance, type RouteShorthandOptions } from 'fastify';
import { z } from 'zod';

const JsonPayloads = z.object({
  payloads: z
    .array(z.object({ metadata: z.record(z.string(), z.string()).optional(), data: z.string().optional() }))
    .max(1_000),
});
type JsonPayload = z.infer<typeof JsonPayloads>['payloads'][number];

const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(p.data ?? '', 'base64'),
});
const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')]),
  ),
  data: Buffer.from(p.data ?? []).toString('base64'),
});

/** Constant-time comparison of a presented token with the configured one (hashes equalise lengths). */
export function tokenMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export interface CodecServerOptions {
  codec: PayloadCodec;
  /** Bearer token required on every request. */
  token: string;
  /** The Temporal UI's origin (e.g. http://localhost:8233); no other origin gets CORS headers. */
  uiOrigin?: string;
  bodyLimit?: number;
}

export async function buildCodecServer(opts: CodecServerOptions): Promise<FastifyInstance> {
  const app = Fastify({ bodyLimit: opts.bodyLimit ?? CODEC_BODY_LIMIT, logger: false });
  await app.register(cors, {
    origin: opts.uiOrigin ? [opts.uiOrigin] : false,
    methods: ['POST', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Namespace'],
    credentials: true,
  });
  app.setErrorHandler((err: { statusCode?: number; message: string }, _req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    void reply.status(status).send({ error: status === 500 ? 'internal error' : err.message });
  });
  app.addHook('onRequest', async (req, reply) => {
    if (req.method === 'OPTIONS') return;
    const header = req.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
    if (!tokenMatches(token, opts.token)) await reply.status(401).send({ error: 'a valid bearer token is required' });
  });
  registerCodecRoutes(app, opts.codec);
  return app;
}

/** Largest codec request body: a history's payloads, not a decision. */
export const CODEC_BODY_LIMIT = 4 * 1024 * 1024;

/** POST /codec/encode and /codec/decode on `app` (here, and on the gateway behind its identities). */
export function registerCodecRoutes(
  app: FastifyInstance,
  codec: PayloadCodec,
  routeOptions: Omit<RouteShorthandOptions, 'handler'> = {},
): void {
  for (const op of ['encode', 'decode'] as const) {
    app.post(`/codec/${op}`, { bodyLimit: CODEC_BODY_LIMIT, ...routeOptions }, async (req, reply) => {
      const parsed = JsonPayloads.safeParse(req.body);
      if (!parsed.success) return reply.status(400).send({ error: 'expected {"payloads": [{"metadata", "data"}]}' });
      try {
        const out = await codec[op](parsed.data.payloads.map(fromJson));
        return { payloads: out.map(toJson) };
      } catch (err) {
        return reply.status(400).send({ error: `could not ${op}: ${(err as Error).message}` });
      }
    });
  }
}
