/**
 * The turn's reads: `state` (the whole turn, budgeted), and the cheap `summary` and `events` queries
 * (src/core/reads.ts), all answered from the state the recorder keeps. Queries add no commands, so
 * registering them changes no history.
 */
import { RawValue } from '@temporalio/common';
import { setHandler } from '@temporalio/workflow';
import {
  EVENTS_DESCRIPTION,
  eventsQuery,
  STATE_DESCRIPTION,
  stateQuery,
  SUMMARY_DESCRIPTION,
  summaryQuery,
  turnStateQuery,
} from '../core/contract';
import { eventsPage, summaryOf } from '../core/reads';
import { budgetedState, type TurnState } from '../core/state';

/** `inline`: a turn inside a session answers `state` as `turnState` (the session's `state` is the session's). */
export function serveReads(state: TurnState, inline = false): void {
  // The last `state` answer as a payload, until the next event: a UI or CLI polling a long turn that
  // is waiting asks for the same answer again and again, and serialising it (up to
  // BOUNDS.stateBytes of JSON, then the SDK's UTF-8 encoding in the sandbox) was most of what the
  // query cost beyond moving its bytes. Every change to the state is an event (`emit` counts them),
  // so the count says when the answer is stale. A RawValue skips the payload converter (the state is
  // plain JSON, which the default converter writes) but not the payload codec.
  let answer: { seq: number; payload: RawValue } | undefined;
  setHandler(
    inline ? turnStateQuery : stateQuery,
    () => {
      if (answer?.seq !== state.eventCount)
        answer = { seq: state.eventCount, payload: new RawValue(budgetedState(state)) };
      return answer.payload as unknown as TurnState;
    },
    { description: STATE_DESCRIPTION },
  );
  setHandler(summaryQuery, () => summaryOf(state), { description: SUMMARY_DESCRIPTION });
  setHandler(eventsQuery, (req) => eventsPage(state, req), { description: EVENTS_DESCRIPTION });
}
