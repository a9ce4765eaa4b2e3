/**
 * The live event stream of a turn as Server-Sent Events, query-driven: the gateway polls the `events`
 * query for what follows the last event sent (no history events) with an adaptive interval — quick
 * while events arrive, backing off to a few seconds while the turn waits for a human — and sends
 * each new event once, with `id: <seq>`. A client resumes with `Last-Event-ID` (EventSource does this
 * on reconnect). When the turn has ended the stream sends `event: end` and closes; a resume after the
 * end gets 204, which tells EventSource not to reconnect.
 *
 * A stream policy per subscriber: `types=TOOL_*,APPROVAL_*` (globs on the event type), `deltas=off`
 * to leave out the model's text, and redaction of all content (./redact.ts) for identities without
 * the `args` right — their stream has no model text at all.
 *
 * Model text streams as `event: delta` (`{call, attempt, text, skipped?}`: append) and
 * `event: discard` (`{call, attempt}`: a failed attempt is retried; drop its text), read from the
 * model activity's heartbeat with DescribeWorkflowExecution — no worker, no history (see
 * src/core/live-text.ts). They carry no `id:`: a resumed stream gets the final text from the
 * `MODEL_CALLED` / `TURN_COMPLETED` events. While a call streams the gateway looks every 50 ms.
 */
import type { ServerResponse } from 'node:http';
import type { TurnEvent } from '../core/state/events';
import { LIVE_TEXT_POLL_MS, LiveTextTracker, type LiveTextEvent, type ModelActivitySnapshot } from '../core/live-text';
import type { EventsPage } from '../core/reads';
import type { TurnStatus } from '../core/schemas';
import { redact } from '../core/redact';

export { redact, REDACTED } from '../core/redact';

/** Parses `TOOL_*,APPROVAL_*` into a predicate on event types; undefined when absent; throws when malformed. */
export function typeFilter(types: string | undefined): ((type: string) => boolean) | undefined {
  if (types === undefined || types.trim() === '') return undefined;
  const globs = types.split(',').map((t) => t.trim());
  if (globs.length > 50 || globs.some((g) => !/^[A-Za-z0-9_*]{1,64}$/.test(g))) {
    throw new Error('types must be a comma-separated list of event types or globs, e.g. TOOL_*,APPROVAL_*');
  }
  const res = globs.map((g) => new RegExp(`^${g.toUpperCase().replace(/\*/g, '[A-Z0-9_]*')}$`));
  return (type) => res.some((re) => re.test(type));
}

/** `Last-Event-ID` (or `?lastEventId=`) as a seq; 0 when absent; throws when not a non-negative integer. */
export function parseLastEventId(value: string | undefined): number {
  if (value === undefined || value === '') return 0;
  if (!/^\d{1,15}$/.test(value.trim())) throw new Error('Last-Event-ID must be the seq of an event');
  return Number(value.trim());
}

export interface StreamOptions {
  afterSeq: number;
  filter?: (type: string) => boolean;
  /** Only the turn's structure (./redact.ts): set `live` only for callers who may see content. */
  redact: boolean;
  /** Reads the turn's status and its events after `afterSeq` (the `events` query). */
  poll: (afterSeq: number) => Promise<EventsPage>;
  /** The model call in flight, if any (its heartbeat); absent: no text deltas. */
  live?: () => Promise<ModelActivitySnapshot | undefined>;
  /** The first page, already read (to answer 404 before the stream starts). */
  first: EventsPage;
  /** Calls `wake` when something (a decision through this gateway) may have changed the turn; returns an unsubscribe. */
  subscribe: (wake: () => void) => () => void;
  minIntervalMs?: number;
  maxIntervalMs?: number;
  heartbeatMs?: number;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
export const isTerminal = (s: { status: TurnStatus }) => TERMINAL.has(s.status);

function frame(event: string | undefined, data: unknown, id?: number): string {
  return `${id !== undefined ? `id: ${id}\n` : ''}${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
}

/**
 * Writes the stream to `res` until the turn ends or the client goes away (`aborted`). Events go out
 * as the default `message` event (data = the event, JSON); besides them: `event: gap` when events
 * fell out of the state's bounded ring before they could be sent, `event: end` (data `{status}`), and
 * `event: error` when the turn could not be read for a while.
 */
export async function streamEvents(res: ServerResponse, aborted: AbortSignal, opts: StreamOptions): Promise<void> {
  const min = opts.minIntervalMs ?? 100;
  const max = opts.maxIntervalMs ?? 2_000;
  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  let seq = opts.afterSeq;
  let interval = min;
  let failures = 0;
  let lastWrite = Date.now();
  const write = (chunk: string) => {
    if (aborted.aborted || res.writableEnded) return;
    res.write(chunk);
    lastWrite = Date.now();
  };
  write(`retry: 2000\n\n`);
  let state: EventsPage | undefined = opts.first;
  let model: ModelActivitySnapshot | undefined;
  let statePolledAt = Date.now();
  const tracker = new LiveTextTracker();
  const text = (events: LiveTextEvent[]) => events.forEach((e) => write(frame(e.type, e)));
  while (!aborted.aborted) {
    if (state) {
      failures = 0;
      // `model` was read just before `state`: its text comes first, a call's tail with its MODEL_CALLED.
      if (opts.live) text(tracker.observe(model));
      const fresh = state.events.filter((e: TurnEvent) => e.seq > seq);
      const oldest = fresh[0]?.seq;
      if (oldest !== undefined && oldest > seq + 1 && seq > 0) write(frame('gap', { from: seq + 1, to: oldest - 1 }));
      for (const event of fresh) {
        seq = event.seq;
        if (opts.live && event.type === 'MODEL_CALLED') text(tracker.complete(event.call, event.text));
        if (opts.filter && !opts.filter(event.type)) continue;
        write(frame(undefined, opts.redact ? redact(event) : event, event.seq));
      }
      if (isTerminal(state) && !state.more) {
        write(frame('end', { status: state.status, lastSeq: seq }));
        break;
      }
      // More events than a page: the next page at once.
      const next = model ? LIVE_TEXT_POLL_MS : fresh.length ? min : Math.min(Math.ceil(interval * 1.5), max);
      interval = state.more ? 0 : next;
    } else if (++failures >= 20) {
      write(frame('error', { error: 'the turn could not be read (is a worker running?)' }));
      break;
    } else {
      interval = Math.min(Math.ceil(interval * 1.5), max);
    }
    if (Date.now() - lastWrite >= heartbeatMs) write(': ping\n\n');
    await wait(interval, aborted, opts.subscribe);
    if (aborted.aborted) break;
    const previous = model;
    model = opts.live ? await opts.live().catch(() => undefined) : undefined;
    // While one model call streams, only its text changes: read the state (a worker round trip) at
    // the usual pace, and at once when the call ends or another starts.
    const sameCall = model && previous && model.progress?.call === previous.progress?.call;
    if (sameCall && state && !state.more && Date.now() - statePolledAt < min * 5) continue;
    state = await opts.poll(seq).catch(() => undefined);
    statePolledAt = Date.now();
  }
  if (!res.writableEnded) res.end();
}

function wait(ms: number, aborted: AbortSignal, subscribe: StreamOptions['subscribe']): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      aborted.removeEventListener('abort', done);
      unsubscribe();
      resolve();
    };
    const timer = setTimeout(done, ms);
    aborted.addEventListener('abort', done, { once: true });
    const unsubscribe = subscribe(done);
  });
}

/** Wakes the streams of a turn when this gateway changed it (a decision, a cancel). */
export class Nudges {
  private readonly waiting = new Map<string, Set<() => void>>();

  subscribe(turnId: string, wake: () => void): () => void {
    let set = this.waiting.get(turnId);
    if (!set) this.waiting.set(turnId, (set = new Set()));
    set.add(wake);
    return () => {
      set.delete(wake);
      if (set.size === 0 && this.waiting.get(turnId) === set) this.waiting.delete(turnId);
    };
  }

  nudge(turnId: string): void {
    [...(this.waiting.get(turnId) ?? [])].forEach((wake) => wake());
  }

  /** Turns with a stream waiting (for tests and metrics). */
  get size(): number {
    return this.waiting.size;
  }
}
