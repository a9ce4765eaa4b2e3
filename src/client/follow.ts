/**
 * Following a turn as it runs: its events by polling the `events` query, quickly while things happen
 * and backing off while it waits for a human, and with them the model's streaming text from the running
 * call's heartbeat (src/client/live-text.ts).
 */
import type { Client } from '@temporalio/client';
import type { TurnEvent } from '../core/state/events';
import { LIVE_TEXT_POLL_MS, LiveTextTracker, type LiveTextEvent } from '../core/live-text';
import type { EventsPage, EventsRequest } from '../core/reads';
import { describeModelActivity } from './live-text';

/** The statuses a turn ends in: a follower stops after the last event of a turn in one. */
export const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** How to follow: after which event, polling how often at the quickest, until when. */
export interface FollowOptions {
  afterSeq?: number;
  intervalMs?: number;
  signal?: AbortSignal;
}

/** A client that reads a turn's events a page at a time. */
interface EventReader {
  readonly temporal: Client;
  events(turnId: string, req?: EventsRequest): Promise<EventsPage>;
}

/** `TillerClient.watch`: the turn's events as they happen, until its final one. */
export async function* watchEvents(
  client: EventReader,
  turnId: string,
  opts: FollowOptions,
): AsyncGenerator<TurnEvent, void, unknown> {
  let seq = opts.afterSeq ?? 0;
  let interval = opts.intervalMs ?? 100;
  while (!opts.signal?.aborted) {
    const page = await client.events(turnId, { afterSeq: seq });
    const fresh = page.events;
    for (const event of fresh) {
      seq = event.seq;
      yield event;
    }
    if (page.more) continue;
    if (TERMINAL.has(page.status)) return;
    // Poll quickly while things happen, back off while the turn waits for a human.
    interval = fresh.length ? (opts.intervalMs ?? 100) : Math.min(interval * 1.5, 2_000);
    await new Promise((r) => setTimeout(r, interval));
  }
}

/** `TillerClient.watchLive`: the turn's events, and the running model call's text as `delta` and `discard` events. */
export async function* watchLiveEvents(
  client: EventReader,
  turnId: string,
  opts: FollowOptions,
): AsyncGenerator<TurnEvent | LiveTextEvent> {
  const tracker = new LiveTextTracker();
  const min = opts.intervalMs ?? 100;
  let seq = opts.afterSeq ?? 0;
  let interval = min;
  while (!opts.signal?.aborted) {
    // Describe first, then query: the state is the newer of the two, so a call's tail from its
    // MODEL_CALLED event always follows the text its last heartbeat showed.
    const activity = await describeModelActivity(client.temporal, turnId).catch(() => undefined);
    yield* tracker.observe(activity?.model);
    const before = seq;
    let page: EventsPage;
    do {
      page = await client.events(turnId, { afterSeq: seq });
      for (const event of page.events) {
        seq = event.seq;
        if (event.type === 'MODEL_CALLED') yield* tracker.complete(event.call, event.text);
        yield event;
      }
    } while (page.more);
    if (TERMINAL.has(page.status)) return;
    const fresh = seq > before;
    interval = activity?.model ? LIVE_TEXT_POLL_MS : fresh ? min : Math.min(interval * 1.5, 2_000);
    await new Promise((r) => setTimeout(r, interval));
  }
}
