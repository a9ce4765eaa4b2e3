/** POST /turns/:id/decisions: decide a pending call; the approver is the verified identity, never the body. */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { describeApprovers, mayDecide } from '../../core/approvers';
import { identityOf } from '../auth';
import { HttpError } from '../errors';
import { canSeeArgs, type Identity } from '../identity';
import { DecisionBody, TurnIdParam } from '../schemas';
import { parse } from './shared';
import type { TurnCalls } from './turn-calls';

export function registerDecisionRoutes(app: FastifyInstance, calls: TurnCalls): void {
  app.post('/turns/:id/decisions', { config: { scope: 'decide' } }, async (req) => {
    const identity = identityOf(req);
    const { id: turnId } = parse(TurnIdParam, req.params, 400);
    // `approver` and `approverGroups` in the body are accepted and ignored: the identity decides.
    const { approver: _ignored, approverGroups: _ignoredGroups, ...body } = parse(DecisionBody, req.body);
    // Editing arguments means seeing them: it takes the `args` right.
    if (body.args !== undefined && !canSeeArgs(identity)) {
      throw new HttpError(403, `${identity.name} may not edit arguments: that needs the args right`);
    }
    const updateId = updateIdOf(req, identity);
    const decision = { ...body, approver: identity.name, approverGroups: identity.groups };
    // Refuse an approver outside the gate before the update, so that nothing is written to the turn; the
    // workflow enforces the same rule (and records an attempt that slips past this check, e.g. mid-escalation).
    return calls.decide(turnId, decision, {
      updateId,
      gate: (summary) => {
        const waiting = summary.pendingApprovals.find((p) => p.id === body.id);
        if (waiting && !mayDecide(waiting.approvers, identity.name, identity.groups)) {
          throw new HttpError(
            403,
            `${identity.name} may not decide ${waiting.tool}; allowed: ${describeApprovers(waiting.approvers ?? [])}`,
          );
        }
      },
    });
  });
}

/**
 * The update id from an `Idempotency-Key`: retries with the same key are the same update. Opaque (a hash
 * of the approver and the key): an update id is stored in history in plaintext, even with the encryption
 * codec on, and must not name who decided.
 */
export function updateIdOf(req: FastifyRequest, identity: Identity): string | undefined {
  const key = req.headers['idempotency-key'];
  if (typeof key !== 'string' || !/^[\w.:-]{1,200}$/.test(key)) return undefined;
  return `gateway:${createHash('sha256').update(identity.name).update('\0').update(key).digest('hex').slice(0, 32)}`;
}
