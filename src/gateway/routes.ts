/**
 * The gateway's routes. Every route but the public ones (/inbox, /openapi.json, /healthz) and the
 * signed webhook needs a verified identity (see identity.ts) with the route's right; decisions carry
 * that identity as the approver, never one from the body.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { TillerClient } from '../client';
import { describeApprovers, mayDecide } from '../core/approvers';
import { formatZodError, type Decision, type RecordedDecision, type TurnState } from '../core/schemas';
import { hasWorker, noWorkerMessage, turnVisibility } from '../client/workers';
import { HttpError, toHttpError } from './errors';
import { can, canSeeArgs, type Identity, type Scope } from './identity';
import { INBOX_HTML, INBOX_JS } from './inbox';
import {
  DecisionBody,
  EventsQuery,
  InboxQuery,
  StartTurnBody,
  TurnIdParam,
  WebhookDecisionBody,
  type InboxItem,
} from './schemas';
import { isTerminal, Nudges, parseLastEventId, redact, streamEvents, typeFilter } from './sse';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, WEBHOOK_APPROVER_PREFIX, type WebhookVerifier } from './webhook';

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

/** How long a task queue counts as served after a worker was seen polling it. */
const WORKER_SEEN_MS = 5_000;

export interface RouteDeps {
  tiller: TillerClient;
  webhook?: WebhookVerifier;
  nudges: Nudges;
  openapi: () => Record<string, unknown>;
  queryTimeoutMs: number;
  decideTimeoutMs: number;
  stream: { minIntervalMs?: number; maxIntervalMs?: number; heartbeatMs?: number };
  /** Open SSE streams at most, over all clients. */
  maxStreams: number;
  /** Aborted when the gateway closes: ends every open stream. */
  closing: AbortSignal;
}

function parse<S extends z.ZodType>(schema: S, value: unknown, status = 422): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new HttpError(status, formatZodError(parsed.error));
  return parsed.data;
}

const identityOf = (req: FastifyRequest): Identity => {
  if (!req.identity) throw new HttpError(401, 'a bearer token is required');
  return req.identity;
};

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

/** Registers the routes; the returned function resolves once no Temporal call of theirs is in flight. */
export function registerRoutes(app: FastifyInstance, deps: RouteDeps): () => Promise<void> {
  const { tiller } = deps;
  let openStreams = 0;
  // Every Temporal call is tracked, so that closing the gateway waits for them (none outlives it).
  const inflight = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    inflight.add(p);
    p.then(
      () => inflight.delete(p),
      () => inflight.delete(p),
    );
    return p;
  };
  const withDeadline = <T>(ms: number, fn: () => Promise<T>) =>
    track(tiller.temporal.connection.withDeadline(Date.now() + ms, fn));
  const describeStatus = (turnId: string) =>
    withDeadline(deps.queryTimeoutMs, () => tiller.handle(turnId).describe()).then((d) => d.status.name);
  const readState = (turnId: string) => withDeadline(deps.queryTimeoutMs, () => tiller.state(turnId));

  // Task queues seen with a worker lately: a query or update without one would wait out its deadline.
  const workerSeen = new Map<string, number>();
  /** 503 at once, with what visibility knows, when no worker polls the turn's task queue. */
  async function requireWorker(turnId: string): Promise<void> {
    const d = await withDeadline(deps.queryTimeoutMs, () => tiller.handle(turnId).describe()).catch((err: unknown) => {
      throw toHttpError(err, `turn ${turnId}`);
    });
    if (Date.now() - (workerSeen.get(d.taskQueue) ?? 0) < WORKER_SEEN_MS) return;
    if (await withDeadline(deps.queryTimeoutMs, () => hasWorker(tiller.temporal, d.taskQueue))) {
      workerSeen.set(d.taskQueue, Date.now());
      return;
    }
    throw new HttpError(503, noWorkerMessage(d.taskQueue), { turn: turnVisibility(d) });
  }
  const readStateChecked = async (turnId: string) => {
    await requireWorker(turnId);
    return readState(turnId);
  };
  const view = (identity: Identity, state: TurnState) => (canSeeArgs(identity) ? state : redact(state));

  /** A decision the workflow refused because the turn has closed reads as 409, not 404. */
  async function closedOrMissing(turnId: string, err: unknown): Promise<never> {
    if (err instanceof WorkflowNotFoundError) {
      const status = await describeStatus(turnId).catch(() => undefined);
      if (status && status !== 'RUNNING') {
        throw new HttpError(409, `turn ${turnId} has ended (${status.toLowerCase()}): nothing is pending`);
      }
    }
    throw toHttpError(err, `turn ${turnId}`);
  }

  async function decide(turnId: string, decision: Decision, updateId?: string): Promise<RecordedDecision> {
    try {
      await requireWorker(turnId);
      return await withDeadline(deps.decideTimeoutMs, () => tiller.decide(turnId, decision, updateId));
    } catch (err) {
      return closedOrMissing(turnId, err);
    } finally {
      deps.nudges.nudge(turnId);
    }
  }

  app.get('/healthz', { config: { public: true } }, async () => ({ ok: true }));
  app.get('/openapi.json', { config: { public: true } }, async () => deps.openapi());
  app.get('/', { config: { public: true } }, async (_req, reply) => reply.redirect('/inbox'));
  app.get('/inbox', { config: { public: true } }, async (_req, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header(
        'content-security-policy',
        "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; " +
          "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      )
      .send(INBOX_HTML),
  );
  app.get('/inbox.js', { config: { public: true } }, async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').send(INBOX_JS),
  );

  app.get('/me', { config: { scope: 'read' } }, async (req) => {
    const me = identityOf(req);
    return { name: me.name, groups: me.groups, scopes: me.scopes, canSeeArgs: canSeeArgs(me), via: me.via };
  });

  app.post('/turns', { config: { scope: 'start' } }, async (req, reply) => {
    const body = parse(StartTurnBody, req.body);
    try {
      if (body.sessionId !== undefined) {
        const { turnId } = await withDeadline(deps.decideTimeoutMs, () =>
          tiller.send(body.sessionId!, body.input, { agent: body.agent }),
        );
        return reply.status(201).send({ turnId, sessionId: body.sessionId });
      }
      const handle = await withDeadline(deps.queryTimeoutMs, () =>
        tiller.startTurn({ agent: body.agent, input: body.input }),
      );
      return reply.status(201).send({ turnId: handle.workflowId });
    } catch (err) {
      throw toHttpError(err, body.sessionId !== undefined ? `session ${body.sessionId}` : 'the turn');
    }
  });

  app.get('/turns/:id', { config: { scope: 'read' } }, async (req) => {
    const { id } = parse(TurnIdParam, req.params, 400);
    const state = await readStateChecked(id).catch((err: unknown) => {
      throw toHttpError(err, `turn ${id}`);
    });
    return view(identityOf(req), state);
  });

  app.get('/turns/:id/events', { config: { scope: 'read', queryToken: true } }, async (req, reply) => {
    const identity = identityOf(req);
    const { id } = parse(TurnIdParam, req.params, 400);
    const query = parse(EventsQuery, req.query, 400);
    let filter: ((type: string) => boolean) | undefined;
    let afterSeq: number;
    try {
      filter = typeFilter(query.types);
      const header = req.headers['last-event-id'];
      afterSeq = parseLastEventId((Array.isArray(header) ? header[0] : header) ?? query.lastEventId);
    } catch (err) {
      throw new HttpError(400, (err as Error).message);
    }
    const first = await readStateChecked(id).catch((err: unknown) => {
      throw toHttpError(err, `turn ${id}`);
    });
    if (afterSeq > 0 && isTerminal(first) && !first.events.some((e) => e.seq > afterSeq)) {
      return reply.status(204).send();
    }
    if (openStreams >= deps.maxStreams) throw new HttpError(429, 'too many open event streams; try again later');
    openStreams++;
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const aborted = new AbortController();
    const abort = () => aborted.abort();
    res.on('close', abort);
    res.on('error', abort);
    deps.closing.addEventListener('abort', abort, { once: true });
    try {
      await track(
        streamEvents(res, aborted.signal, {
          afterSeq,
          ...(filter && { filter }),
          redact: !canSeeArgs(identity),
          first,
          poll: () => readState(id),
          ...(query.deltas !== 'off' && { live: () => deps.tiller.liveText(id) }),
          subscribe: (wake) => deps.nudges.subscribe(id, wake),
          ...deps.stream,
        }),
      );
    } catch {
      // A client that went away mid-write: nothing to answer.
      if (!res.writableEnded) res.end();
    } finally {
      openStreams--;
      deps.closing.removeEventListener('abort', abort);
    }
  });

  app.post('/turns/:id/decisions', { config: { scope: 'decide' } }, async (req) => {
    const identity = identityOf(req);
    const { id: turnId } = parse(TurnIdParam, req.params, 400);
    // `approver` and `approverGroups` in the body are accepted and ignored: the identity decides.
    const { approver: _ignored, approverGroups: _ignoredGroups, ...body } = parse(DecisionBody, req.body);
    // Refuse an approver outside the gate here, so that nothing is written to the turn; the workflow
    // enforces the same rule (and records an attempt that slips past this check, e.g. mid-escalation).
    const state = await readStateChecked(turnId).catch((err: unknown) => closedOrMissing(turnId, err));
    const waiting = state.pendingApprovals.find((p) => p.id === body.id);
    if (waiting && !mayDecide(waiting.approvers, identity.name, identity.groups)) {
      throw new HttpError(
        403,
        `${identity.name} may not decide ${waiting.tool}; allowed: ${describeApprovers(waiting.approvers ?? [])}`,
      );
    }
    const key = req.headers['idempotency-key'];
    const updateId =
      typeof key === 'string' && /^[\w.:-]{1,200}$/.test(key) ? `gateway:${identity.name}:${key}` : undefined;
    return decide(turnId, { ...body, approver: identity.name, approverGroups: identity.groups }, updateId);
  });

  app.post('/turns/:id/cancel', { config: { scope: 'cancel' } }, async (req, reply) => {
    const { id } = parse(TurnIdParam, req.params, 400);
    const status = await describeStatus(id).catch((err: unknown) => {
      throw toHttpError(err, `turn ${id}`);
    });
    if (status !== 'RUNNING') throw new HttpError(409, `turn ${id} has ended (${status.toLowerCase()})`);
    await withDeadline(deps.queryTimeoutMs, () => tiller.cancel(id)).catch((err: unknown) => {
      throw toHttpError(err, `turn ${id}`);
    });
    deps.nudges.nudge(id);
    return reply.status(202).send({ turnId: id, cancelRequested: true });
  });

  app.get('/approvals', { config: { scope: 'read' } }, async (req) => {
    const identity = identityOf(req);
    const query = parse(InboxQuery, req.query, 400);
    const turns = await withDeadline(deps.queryTimeoutMs, () =>
      tiller.pending({
        ...(query.agent !== undefined && { agent: query.agent }),
        limit: query.limit ?? 100,
      }),
    ).catch((err: unknown) => {
      throw toHttpError(err, 'the inbox');
    });
    // Only the turns visibility lists as waiting are queried; one that has moved on meanwhile drops out.
    const states = await mapLimit(turns, 8, (t) => readState(t.turnId).catch(() => undefined));
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
    return { approvals: canSeeArgs(identity) ? approvals : redact(approvals), turns: turns.length };
  });

  if (deps.webhook) registerWebhook(app, deps.webhook, decide);
  return async () => {
    while (inflight.size) await Promise.allSettled([...inflight]);
  };
}

function registerWebhook(
  app: FastifyInstance,
  verifier: WebhookVerifier,
  decide: (turnId: string, decision: Decision) => Promise<RecordedDecision>,
): void {
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
      if (!check.ok) return reply.status(check.status).send({ error: check.reason });
      let json: unknown;
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new HttpError(400, 'the body is not JSON');
      }
      const body = parse(WebhookDecisionBody, json);
      const { turnId, approver, ...rest } = body;
      return decide(turnId, { ...rest, approver: `${WEBHOOK_APPROVER_PREFIX}${approver}` });
    });
  });
}
