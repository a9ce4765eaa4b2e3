/** GET /turns/:id/events: a turn's events live, as Server-Sent Events (see ../sse.ts). */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { identityOf } from '../auth';
import { HttpError, toHttpError } from '../errors';
import { canSeeArgs } from '../identity';
import { EventsQuery, TurnIdParam } from '../schemas';
import { isTerminal, parseLastEventId, streamEvents, typeFilter } from '../sse';
import { parse, type RouteDeps } from './shared';
import type { TurnCalls } from './turn-calls';

export function registerEventRoutes(app: FastifyInstance, deps: RouteDeps, calls: TurnCalls): void {
  let openStreams = 0;
  /** Open streams per caller: one caller may not take every slot. */
  const perCaller = new Map<string, number>();
  app.get('/turns/:id/events', { config: { scope: 'read', queryToken: true } }, async (req, reply) => {
    const identity = identityOf(req);
    const { id } = parse(TurnIdParam, req.params, 400);
    const query = parse(EventsQuery, req.query, 400);
    const { filter, afterSeq } = resumeAndFilter(req, query);
    const first = await calls.readEventsChecked(id, afterSeq).catch((err: unknown) => {
      throw toHttpError(err, `turn ${id}`);
    });
    if (afterSeq > 0 && isTerminal(first) && first.events.length === 0) {
      return reply.status(204).send();
    }
    if (openStreams >= deps.maxStreams) throw new HttpError(429, 'too many open event streams; try again later');
    const caller = `${identity.via}:${identity.name}`;
    const mine = perCaller.get(caller) ?? 0;
    if (mine >= deps.maxStreamsPerCaller) {
      throw new HttpError(
        429,
        `${identity.name} has ${mine} open event streams, the most one caller may have; close one first`,
      );
    }
    openStreams++;
    perCaller.set(caller, mine + 1);
    const content = canSeeArgs(identity);
    try {
      await sendStream(reply, deps.closing, (res, aborted) =>
        calls.track(
          streamEvents(res, aborted, {
            afterSeq,
            ...(filter && { filter }),
            redact: !content,
            first,
            poll: (after) => calls.readEvents(id, after),
            // The live text is the model's: only for callers who may see content.
            ...(query.deltas !== 'off' && content && { live: () => deps.tiller.liveText(id) }),
            subscribe: (wake) => deps.nudges.subscribe(id, wake),
            ...deps.stream,
          }),
        ),
      );
    } finally {
      openStreams--;
      const left = (perCaller.get(caller) ?? 1) - 1;
      if (left > 0) perCaller.set(caller, left);
      else perCaller.delete(caller);
    }
  });
}

/** The seq to resume after (`Last-Event-ID` or `?lastEventId=`) and the `types` filter; 400 when malformed. */
function resumeAndFilter(req: FastifyRequest, query: z.infer<typeof EventsQuery>) {
  try {
    const filter = typeFilter(query.types);
    const header = req.headers['last-event-id'];
    const afterSeq = parseLastEventId((Array.isArray(header) ? header[0] : header) ?? query.lastEventId);
    return { filter, afterSeq };
  } catch (err) {
    throw new HttpError(400, (err as Error).message);
  }
}

/** Takes over the response and writes the stream until it ends, the client leaves or the gateway closes. */
async function sendStream(
  reply: FastifyReply,
  closing: AbortSignal,
  write: (res: ServerResponse, aborted: AbortSignal) => Promise<void>,
): Promise<void> {
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
  closing.addEventListener('abort', abort, { once: true });
  try {
    await write(res, aborted.signal);
  } catch {
    // A client that went away mid-write: nothing to answer.
    if (!res.writableEnded) res.end();
  } finally {
    closing.removeEventListener('abort', abort);
  }
}
