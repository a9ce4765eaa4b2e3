/**
 * A folder of exported histories (the Temporal CLI's `temporal workflow show --output json`, the UI's
 * download, or `historyToJSON`): one JSON file per run, `{ events: [...] }`, checked by a zod schema and
 * bounded in size and number before anything reads it. The workflow id is the file's name, unless the
 * file says otherwise (`workflowId`, as some exporters add).
 */
import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { readBoundedFile } from './bounded-file';
import { HISTORY_BOUNDS } from './history-decode';

/** At most this many files in a folder, and bytes per file. */
export const FOLDER_BOUNDS = { files: 10_000, fileBytes: 64 * 1024 * 1024 } as const;

/** One exported history file. */
export const HistoryFile = z.looseObject({
  workflowId: z.string().min(1).max(1000).optional(),
  runId: z.string().max(200).optional(),
  events: z.array(z.looseObject({ eventId: z.union([z.string(), z.number()]).optional() })).max(HISTORY_BOUNDS.events),
});
export type HistoryFile = z.infer<typeof HistoryFile>;

/** A history read from a file, with the ids it is known by. */
export interface FileHistory {
  workflowId: string;
  runId?: string;
  history: temporal.api.history.v1.IHistory;
  file: string;
}

/** Parses one exported history's text; throws with the file's name when it is not one. */
export function parseHistoryFile(text: string, file: string): FileHistory {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file}: not JSON (${(err as Error).message.slice(0, 120)})`, { cause: err });
  }
  const parsed = HistoryFile.safeParse(json);
  if (!parsed.success) throw new Error(`${file}: not an exported history (${parsed.error.issues[0]?.message})`);
  const workflowId = parsed.data.workflowId ?? path.basename(file).replace(/\.json$/i, '');
  return {
    workflowId,
    ...(parsed.data.runId !== undefined && { runId: parsed.data.runId }),
    history: historyFromJSON({ events: parsed.data.events }),
    file,
  };
}

/** Every `*.json` history in `folder` (not recursive), in name order. */
export function readHistoryFolder(folder: string): FileHistory[] {
  const names = fs
    .readdirSync(folder)
    .filter((n) => n.toLowerCase().endsWith('.json'))
    .sort();
  if (names.length > FOLDER_BOUNDS.files) throw new Error(`${folder}: more than ${FOLDER_BOUNDS.files} histories`);
  return names.map((name) => {
    const file = path.join(folder, name);
    return parseHistoryFile(readBoundedFile(file, FOLDER_BOUNDS.fileBytes), file);
  });
}
