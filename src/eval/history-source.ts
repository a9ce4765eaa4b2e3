/**
 * Which recorded turns to read, and reading them: workflow ids, a visibility query, a session (its turns,
 * by the `TillerSession` search attribute), or a folder of exported histories. Temporal glue: histories
 * come from `WorkflowHandle.fetchHistory()` and are decoded by ./history-decode.ts.
 */
import { sessionOfTurn } from '../core/inline-turns';
import type { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { decodeTurnHistory, type TurnHistory } from './history-decode';
import { readHistoryFolder } from './history-file';

/** Recorded turns to read: any mix of these. */
export interface TurnSelection {
  /** Turn ids (the latest run of each). */
  turnIds?: string[];
  /** A visibility list filter, e.g. `TillerAgent="assistant" AND CloseTime > "2026-12-01T00:00:00Z"`. */
  query?: string;
  /** A session's id: its turns. */
  session?: string;
  /** A folder of exported histories (JSON, one run each). */
  folder?: string;
  /** At most this many turns from `query` and `session` (default 1,000). */
  limit?: number;
}

/** Where histories come from and how their payloads decode. */
export interface HistoryReader {
  /** Needed for ids, queries and sessions; not for a folder. */
  client?: Client;
  /** Decodes payloads (the encryption codec): default none. */
  dataConverter?: DataConverter;
}

/** The visibility filter for a session's turns. */
export const sessionQuery = (session: string): string =>
  `WorkflowType = "agentTurn" AND TillerSession = ${JSON.stringify(session)}`;

/** Reads the selected turns' histories, decoded, in order (ids, query matches, session, folder), each run once. */
export async function readTurnHistories(selection: TurnSelection, reader: HistoryReader): Promise<TurnHistory[]> {
  const dc = reader.dataConverter ?? {};
  const targets: { workflowId: string; runId?: string }[] = (selection.turnIds ?? []).map((workflowId) => ({
    workflowId,
  }));
  const limit = selection.limit ?? 1_000;
  for (const query of [selection.query, selection.session && sessionQuery(selection.session)]) {
    if (!query) continue;
    const client = need(reader.client);
    let n = 0;
    for await (const wf of client.workflow.list({ query })) {
      if (n++ >= limit) break;
      targets.push({ workflowId: wf.workflowId, runId: wf.runId });
    }
  }
  const seen = new Set<string>();
  const out: TurnHistory[] = [];
  for (const t of targets) {
    const session = sessionOfTurn(t.workflowId);
    if (session !== undefined)
      throw new Error(
        `turn ${t.workflowId} ran inside session ${session} (inlineTurns): it has no workflow history of its own to read (docs/sessions.md)`,
      );
    const client = need(reader.client);
    const handle = client.workflow.getHandle(t.workflowId, t.runId);
    const runId = t.runId ?? (await handle.describe()).runId;
    if (seen.has(`${t.workflowId}/${runId}`)) continue;
    seen.add(`${t.workflowId}/${runId}`);
    const history = await client.workflow.getHandle(t.workflowId, runId).fetchHistory();
    out.push(await decodeTurnHistory({ workflowId: t.workflowId, runId }, history, dc));
  }
  if (selection.folder) {
    for (const f of readHistoryFolder(selection.folder)) {
      out.push(
        await decodeTurnHistory(
          { workflowId: f.workflowId, ...(f.runId !== undefined && { runId: f.runId }) },
          f.history,
          dc,
        ),
      );
    }
  }
  return out;
}

function need(client: Client | undefined): Client {
  if (!client) throw new Error('reading turns by id, query or session needs a Temporal client');
  return client;
}
