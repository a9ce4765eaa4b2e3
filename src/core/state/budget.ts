/**
 * The turn state within its byte budget: the view the `state` query answers (and a turn's result
 * carries its calls from), and the cheap running bound of the state's size that decides whether a view
 * is needed at all. Pure: runs inside the workflow sandbox with the reducer (index.ts).
 */
import { boundJson, BOUNDS, clip, jsonBytes } from '../bounds';
import type { TurnState } from './types';

/**
 * The state as the `state` query answers it (and a turn's result carries its calls): under
 * `BOUNDS.stateBytes` whatever the turn went through. Usually the state itself; past the budget the
 * oldest events go first (`eventCount` still counts them), then long call results and arguments are
 * clipped, newest calls kept whole longest.
 */
export function budgetedState(state: TurnState, maxBytes: number = BOUNDS.stateBytes): TurnState {
  const total = stateBytesAtMost(state, maxBytes); // exact whenever it is over the budget
  if (total <= maxBytes) return state;
  let excess = total - maxBytes;
  let dropped = 0;
  while (dropped < state.events.length && excess > 0) excess -= jsonBytes(state.events[dropped++]) + 1;
  const view: TurnState = { ...state, events: state.events.slice(dropped) };
  if (excess <= 0) return view;
  for (const limit of [BOUNDS.text, 200]) {
    if (jsonBytes(view) <= maxBytes) return view;
    view.toolCalls = view.toolCalls.map((c) => ({
      ...c,
      args: boundJson(c.args, limit),
      ...(c.result !== undefined && { result: clip(c.result, limit) }),
    }));
    if (view.output !== undefined) view.output = clip(view.output, limit * 10);
  }
  return view;
}

/** What `stateBytesAtMost` last knew of a state: after event `seq`, at most `bytes` of JSON. */
const sizeBounds = new WeakMap<TurnState, { seq: number; bytes: number }>();

/**
 * Folding one event grows the state's JSON by at most this many times the event's own JSON, plus
 * {@link GROWTH_SLACK}: the event itself in the ring, and its content at most twice more — a call's
 * arguments in its record and in its pending approval — plus fixed-size fields (statuses, counters).
 * Events that rewrite every open call (the turn failed or was cancelled) are not bounded this way.
 */
const GROWTH_FACTOR = 3;
const GROWTH_SLACK = 1_024;
const UNBOUNDED_GROWTH: ReadonlySet<string> = new Set(['TURN_FAILED', 'TURN_CANCELLED']);

/**
 * The state's size as JSON in UTF-8 bytes, or an upper bound of it that is within `maxBytes`: the
 * exact size measured once, plus what each event folded since can have added (its own bytes, so the
 * cost is that of the new events, not the whole state — a polled state of a long turn was re-serialised
 * per query). Measured exactly again when the bound passes `maxBytes`, when events since were dropped
 * from the ring unmeasured, or after an event of unbounded growth. Over the budget it is exact.
 */
export function stateBytesAtMost(state: TurnState, maxBytes: number): number {
  const known = sizeBounds.get(state);
  if (known && known.seq === state.eventCount && known.bytes <= maxBytes) return known.bytes;
  if (known && known.seq < state.eventCount) {
    const oldest = state.events[0]?.seq ?? Infinity;
    if (oldest <= known.seq + 1) {
      let bytes = known.bytes;
      for (let i = known.seq + 1 - oldest; i < state.events.length && bytes <= maxBytes; i++) {
        const event = state.events[i]!;
        bytes = UNBOUNDED_GROWTH.has(event.type) ? Infinity : bytes + GROWTH_FACTOR * jsonBytes(event) + GROWTH_SLACK;
      }
      if (bytes <= maxBytes) {
        sizeBounds.set(state, { seq: state.eventCount, bytes });
        return bytes;
      }
    }
  }
  const bytes = jsonBytes(state);
  sizeBounds.set(state, { seq: state.eventCount, bytes });
  return bytes;
}
