/**
 * Replay fixtures: with TILLER_RECORD_FIXTURES=1 (`npm run record-fixtures`), integration tests save
 * the histories of the turns they ran to test/fixtures/histories/ (the JSON format of
 * `temporal workflow show -o json`), and test/unit/replay.test.ts replays every saved history
 * against the current workflow code.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';

export const FIXTURE_DIR = path.resolve(__dirname, '../fixtures/histories');
/** Workflow ids of the recorded runs (histories do not contain them; session turn ids derive from them). */
export const FIXTURE_IDS = path.join(FIXTURE_DIR, 'workflow-ids.json');

export function fixtureWorkflowIds(): Record<string, string> {
  return fs.existsSync(FIXTURE_IDS) ? JSON.parse(fs.readFileSync(FIXTURE_IDS, 'utf8')) : {};
}

/** Saves the history of `workflowId`'s latest run (or of `runId`, for a turn that continued as new). */
export async function recordFixture(client: Client, workflowId: string, name: string, runId?: string): Promise<void> {
  if (process.env.TILLER_RECORD_FIXTURES !== '1') return;
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  fs.mkdirSync(FIXTURE_DIR, { recursive: true });
  fs.writeFileSync(path.join(FIXTURE_DIR, `${name}.json`), historyToJSON(history));
  const ids = { ...fixtureWorkflowIds(), [name]: workflowId };
  const sorted = Object.fromEntries(Object.entries(ids).sort(([a], [b]) => a.localeCompare(b)));
  fs.writeFileSync(FIXTURE_IDS, `${JSON.stringify(sorted, null, 2)}\n`);
}
