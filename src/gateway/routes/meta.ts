/** Routes about the gateway itself and its caller: health, the OpenAPI document, the root, /me. */
import type { FastifyInstance } from 'fastify';
import { identityOf } from '../auth';
import { canSeeArgs } from '../identity';

export function registerMetaRoutes(app: FastifyInstance, openapi: () => Record<string, unknown>): void {
  app.get('/healthz', { config: { public: true } }, async () => ({ ok: true }));
  app.get('/openapi.json', { config: { public: true } }, async () => openapi());
  app.get('/', { config: { public: true } }, async (_req, reply) => reply.redirect('/inbox'));
  app.get('/me', { config: { scope: 'read' } }, async (req) => {
    const me = identityOf(req);
    return { name: me.name, groups: me.groups, scopes: me.scopes, canSeeArgs: canSeeArgs(me), via: me.via };
  });
}
