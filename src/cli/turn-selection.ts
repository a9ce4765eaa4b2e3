/** The turns `tiller eval` and `tiller audit` read, from their shared options: ids, a query, a session or a folder. */
import type { TurnSelection } from '../eval/history-source';

/** The selecting options both commands take. */
export interface SelectionOptions {
  query?: string;
  session?: string;
  folder?: string;
  limit?: number;
}

export function turnSelection(turnIds: string[], o: SelectionOptions): TurnSelection {
  return {
    turnIds,
    ...(o.query !== undefined && { query: o.query }),
    ...(o.session !== undefined && { session: o.session }),
    ...(o.folder !== undefined && { folder: o.folder }),
    ...(o.limit !== undefined && { limit: o.limit }),
  };
}
