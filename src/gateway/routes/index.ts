/**
 * The gateway's routes, one module per resource. Every route but the public ones (/inbox,
 * /openapi.json, /healthz) and the signed webhooks (ours, Slack's interactions) needs a verified
 * identity (see ../auth.ts) with the route's right; decisions carry that identity as the approver,
 * never one from the body.
 */
import type { FastifyInstance } from 'fastify';
import { registerInboxPage } from '../inbox';
import { registerApprovalRoutes } from './approvals';
import { registerDecisionRoutes } from './decisions';
import { registerEventRoutes } from './events';
import { registerMetaRoutes } from './meta';
import type { RouteDeps } from './shared';
import { registerSlackRoutes } from './slack';
import { TurnCalls } from './turn-calls';
import { registerTurnRoutes } from './turns';
import { registerWebhookRoute } from './webhook';

export type { RouteDeps } from './shared';

/** Registers the routes; the returned function resolves once no Temporal call of theirs is in flight. */
export function registerRoutes(app: FastifyInstance, deps: RouteDeps): () => Promise<void> {
  const calls = new TurnCalls(deps);
  registerMetaRoutes(app, deps.openapi);
  registerInboxPage(app);
  registerTurnRoutes(app, deps, calls);
  registerEventRoutes(app, deps, calls);
  registerDecisionRoutes(app, calls);
  registerApprovalRoutes(app, deps, calls);
  if (deps.webhook) registerWebhookRoute(app, deps.webhook, calls);
  if (deps.slack) registerSlackRoutes(app, deps.slack, calls);
  return () => calls.settled();
}
