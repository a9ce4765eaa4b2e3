/**
 * Authentication of every request but the public ones: the bearer credential is verified (see
 * identity.ts) before the body is parsed, and the route's right is checked. Routes declare what they
 * need in their `config`; handlers read the verified caller with {@link identityOf}.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from './errors';
import { AuthError, bearer, can, type Identity, type IdentityVerifier, type Scope } from './identity';

declare module 'fastify' {
  interface FastifyRequest {
    identity?: Identity;
  }
  interface FastifyContextConfig {
    /** No credentials needed (the inbox page, the OpenAPI document, health, the signed webhook). */
    public?: boolean;
    /** The right the identity needs. */
    scope?: Scope;
    /** Accept the token as `?access_token=` (SSE only: EventSource cannot send headers). */
    queryToken?: boolean;
  }
}

/** The verified identity of a request (401 without one). */
export const identityOf = (req: FastifyRequest): Identity => {
  if (!req.identity) throw new HttpError(401, 'a bearer token is required');
  return req.identity;
};

/** Authenticates every request with a route that is not public; runs after the rate limit (route-level onRequest). */
export function installAuthentication(app: FastifyInstance, verifier: IdentityVerifier): void {
  // Before the body is parsed: an unauthenticated body is never read.
  app.addHook('preParsing', async (req, reply, payload) => {
    await authenticate(verifier, req, reply);
    return payload;
  });
}

async function authenticate(verifier: IdentityVerifier, req: FastifyRequest, reply: FastifyReply): Promise<void> {
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
}
