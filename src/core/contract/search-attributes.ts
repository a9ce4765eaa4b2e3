/** Typed search attributes that make waiting turns findable in the Temporal UI and by `tiller pending`. */
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

/** The turn's status (`running`, `awaiting_approval`, …): `TillerStatus="awaiting_approval"` finds waiting turns. */
export const TillerStatus = defineSearchAttributeKey('TillerStatus', SearchAttributeType.KEYWORD);
/** The agent a turn runs. */
export const TillerAgent = defineSearchAttributeKey('TillerAgent', SearchAttributeType.KEYWORD);
/** The tools whose calls wait for a human. */
export const TillerPendingTools = defineSearchAttributeKey('TillerPendingTools', SearchAttributeType.KEYWORD_LIST);
/** The session a turn belongs to. */
export const TillerSession = defineSearchAttributeKey('TillerSession', SearchAttributeType.KEYWORD);

/** Name → type, for registering them on a server (`temporal operator search-attribute create`). */
export const SEARCH_ATTRIBUTES = {
  TillerStatus: 'Keyword',
  TillerAgent: 'Keyword',
  TillerPendingTools: 'KeywordList',
  TillerSession: 'Keyword',
} as const;

/** Which of Tiller's search attributes are not among a namespace's custom attributes (their names). */
export function missingSearchAttributes(custom: Record<string, unknown> | null | undefined): string[] {
  return Object.keys(SEARCH_ATTRIBUTES).filter((name) => !(name in (custom ?? {})));
}

/**
 * A turn's search attributes as it shows them running and waiting for nothing: what Tiller's client and
 * a session start a turn with, so the turn does not set them in its first task (src/workflows/visibility.ts).
 */
export function runningTurnAttributes(agent: string, sessionId?: string): SearchAttributePair[] {
  return [
    { key: TillerStatus, value: 'running' },
    { key: TillerAgent, value: agent },
    ...(sessionId !== undefined ? [{ key: TillerSession, value: sessionId }] : []),
  ];
}
