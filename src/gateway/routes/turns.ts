/** A turn's own routes: start one (or a session's next), read its state, cancel it. */
import type { FastifyInstance } from 'fastify';
import type { TurnState } from '../../core/state';
import { identityOf } from '../auth';
import { HttpError, toHttpError } from '../errors';
import { canSeeArgs, type Identity } from '../identity';
import { StartTurnBody, TurnIdParam } from '../schemas';
import { redact } from '../../core/redact';
import { parse, type RouteDeps } from './shared';
import type { TurnCalls } from './turn-calls';

const view = (identity: Identity, state: TurnState) => (canSeeArgs(identity) ? state : redact(state));

export function registerTurnRoutes(app: FastifyInstance, deps: RouteDeps, calls: TurnCalls): void {
  const { tiller } = deps;

  app.post('/turns', { config: { scope: 'start' } }, async (req, reply) => {
    const identity = identityOf(req);
    const body = parse(StartTurnBody, req.body);
    try {
      if (body.sessionId !== undefined) {
        // The caller is the session's principal: its owner when this send starts it, else checked
        // against the owner by the session (a refusal is a 403).
        const principal = { name: identity.name, groups: identity.groups };
        const { turnId } = await calls.withDeadline(deps.decideTimeoutMs, () =>
          tiller.send(body.sessionId!, body.input, {
            agent: body.agent,
            principal,
            ...(body.inlineTurns && { inlineTurns: true }),
          }),
        );
        return reply.status(201).send({ turnId, sessionId: body.sessionId });
      }
      const handle = await calls.withDeadline(deps.queryTimeoutMs, () =>
        tiller.startTurn({ agent: body.agent, input: body.input, startedBy: identity.name }),
      );
      return reply.status(201).send({ turnId: handle.workflowId });
    } catch (err) {
      throw toHttpError(err, body.sessionId !== undefined ? `session ${body.sessionId}` : 'the turn');
    }
  });

  app.get('/turns/:id', { config: { scope: 'read' } }, async (req) => {
    const { id } = parse(TurnIdParam, req.params, 400);
    const state = await calls.readStateChecked(id).catch((err: unknown) => {
      throw toHttpError(err, `turn ${id}`);
    });
    return view(identityOf(req), state);
  });

  app.post('/turns/:id/cancel', { config: { scope: 'cancel' } }, async (req, reply) => {
    const { id } = parse(TurnIdParam, req.params, 400);
    const status = await calls.describeStatus(id).catch((err: unknown) => {
      throw toHttpError(err, `turn ${id}`);
    });
    if (status !== 'RUNNING') throw new HttpError(409, `turn ${id} has ended (${status.toLowerCase()})`);
    await calls
      .withDeadline(deps.queryTimeoutMs, () => tiller.cancel(id))
      .catch((err: unknown) => {
        throw toHttpError(err, `turn ${id}`);
      });
    deps.nudges.nudge(id);
    return reply.status(202).send({ turnId: id, cancelRequested: true });
  });
}
