/** POST /webhooks/decision: a decision from a chat button, signed with HMAC-SHA256 (see ../webhook.ts). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../errors';
import { WebhookDecisionBody } from '../schemas';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, WEBHOOK_APPROVER_PREFIX, type WebhookVerifier } from '../webhook';
import { parse } from './shared';
import type { TurnCalls } from './turn-calls';

export function registerWebhookRoute(app: FastifyInstance, verifier: WebhookVerifier, calls: TurnCalls): void {
  // An encapsulated scope whose JSON parser keeps the raw bytes: the signature is over them.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    scope.post('/webhooks/decision', { config: { public: true } }, async (req: FastifyRequest, reply: FastifyReply) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const header = (name: string) => {
        const v = req.headers[name];
        return Array.isArray(v) ? v[0] : v;
      };
      const check = verifier.check(header(TIMESTAMP_HEADER), header(SIGNATURE_HEADER), raw);
      if (check.type === 'refused') return reply.status(check.status).send({ error: check.reason });
      let json: unknown;
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new HttpError(400, 'the body is not JSON');
      }
      const body = parse(WebhookDecisionBody, json);
      const { turnId, approver, ...rest } = body;
      return calls.decide(turnId, { ...rest, approver: `${WEBHOOK_APPROVER_PREFIX}${approver}` });
    });
  });
}
