/** GET /approvals: the inbox, the waiting calls of the turns visibility lists as awaiting approval. */
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { mayDecide } from '../../core/approvers';
import type { TurnSummary } from '../../core/reads';
import { identityOf } from '../auth';
import { toHttpError } from '../errors';
import { can, canSeeArgs, type Identity } from '../identity';
import { InboxQuery, type InboxItem } from '../schemas';
import { redact } from '../../core/redact';
import { parse, type RouteDeps } from './shared';
import type { TurnCalls } from './turn-calls';

export function registerApprovalRoutes(app: FastifyInstance, deps: RouteDeps, calls: TurnCalls): void {
  app.get('/approvals', { config: { scope: 'read' } }, async (req) => {
    const identity = identityOf(req);
    const query = parse(InboxQuery, req.query, 400);
    const turns = await calls
      .withDeadline(deps.queryTimeoutMs, () =>
        deps.tiller.pending({
          ...(query.agent !== undefined && { agent: query.agent }),
          limit: query.limit ?? 100,
        }),
      )
      .catch((err: unknown) => {
        throw toHttpError(err, 'the inbox');
      });
    // Only the turns visibility lists as waiting are queried; one that has moved on meanwhile drops out.
    const summaries = await mapLimit(turns, 8, (t) => calls.readSummary(t.turnId).catch(() => undefined));
    const approvals = inboxItems(summaries, identity);
    return { approvals: canSeeArgs(identity) ? approvals : redact(approvals), turns: turns.length };
  });
}

/** The pending calls of the turns, oldest request first. */
function inboxItems(states: (TurnSummary | undefined)[], identity: Identity): z.infer<typeof InboxItem>[] {
  const approvals: z.infer<typeof InboxItem>[] = [];
  for (const state of states) {
    if (!state) continue;
    for (const p of state.pendingApprovals) {
      approvals.push({
        ...p,
        turnId: state.turnId,
        agent: state.agent,
        ...(state.sessionId !== undefined && { sessionId: state.sessionId }),
        youMayDecide: can(identity, 'decide') && mayDecide(p.approvers, identity.name, identity.groups),
      });
    }
  }
  approvals.sort((a, b) => a.requestedAt.localeCompare(b.requestedAt));
  return approvals;
}

/** `fn` over the items, at most `limit` at a time; the results in the items' order. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  });
  await Promise.all(workers);
  return out;
}
