/**
 * Histories the bench saves for scripts/bench/replay-cost.ts to replay in-process:
 * test-artifacts/bench/<set>-histories/<storage>/<name>.json. The query section saves its waiting turns
 * (`query`), the durable section the last turn of its loops (`durable`), with how many tool steps each has.
 */
import fs from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { ARTIFACTS, type BenchEnv } from './env';

export type HistorySet = 'query' | 'durable';

export function historiesDir(set: HistorySet, storage: string): string {
  return path.join(ARTIFACTS, `${set}-histories`, storage);
}

/** Saves workflow `id`'s history as `name` in `set`, with its `steps`; returns its number of events. */
export async function saveHistory(
  env: BenchEnv,
  set: HistorySet,
  name: string,
  id: string,
  steps: number,
): Promise<number> {
  const dir = historiesDir(set, env.storage);
  fs.mkdirSync(dir, { recursive: true });
  const history = await env.client.workflow.getHandle(id).fetchHistory();
  fs.writeFileSync(path.join(dir, `${name}.json`), historyToJSON(history));
  const stepsFile = path.join(dir, 'steps.json');
  const known = fs.existsSync(stepsFile) ? (JSON.parse(fs.readFileSync(stepsFile, 'utf8')) as object) : {};
  fs.writeFileSync(stepsFile, JSON.stringify({ ...known, [name]: steps }, null, 2));
  return history.events?.length ?? 0;
}
