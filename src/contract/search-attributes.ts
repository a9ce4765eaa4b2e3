/** Typed search attributes that make waiting turns findable in the Temporal UI and by `tiller pending`. */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const TillerStatus = defineSearchAttributeKey('TillerStatus', SearchAttributeType.KEYWORD);
export const TillerAgent = defineSearchAttributeKey('TillerAgent', SearchAttributeType.KEYWORD);
export const TillerPendingTools = defineSearchAttributeKey('TillerPendingTools', SearchAttributeType.KEYWORD_LIST);
export const TillerSession = defineSearchAttributeKey('TillerSession', SearchAttributeType.KEYWORD);

/** Name → type, for registering them on a server (`temporal operator search-attribute create`). */
export const SEARCH_ATTRIBUTES = {
  TillerStatus: 'Keyword',
  TillerAgent: 'Keyword',
  TillerPendingTools: 'KeywordList',
  TillerSession: 'Keyword',
} as const;
