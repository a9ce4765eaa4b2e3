/**
 * The turn's cheap reads (src/core/reads.ts): the `summary` and `events` queries, answered from the
 * state the recorder keeps. Queries add no commands, so registering them changes no history.
 */
import { setHandler } from '@temporalio/workflow';
import { EVENTS_DESCRIPTION, eventsQuery, SUMMARY_DESCRIPTION, summaryQuery } from '../contract';
import { eventsPage, summaryOf } from '../core/reads';
import type { TurnState } from '../core/state';

export function serveReads(state: TurnState): void {
  setHandler(summaryQuery, () => summaryOf(state), { description: SUMMARY_DESCRIPTION });
  setHandler(eventsQuery, (req) => eventsPage(state, req), { description: EVENTS_DESCRIPTION });
}
