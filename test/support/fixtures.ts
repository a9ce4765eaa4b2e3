/**
 * Replay fixtures: with TILLER_RECORD_FIXTURES=1 (`npm run record-fixtures`), integration tests save
 * the histories of the turns they ran to test/fixtures/histories/ — exported by the stock
 * `temporal workflow show -o json`, the same format users attach to bug reports — and
 * test/unit/replay.test.ts replays every saved history against the current workflow code.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';

export const FIXTURE_DIR = path.resolve(__dirname, '../fixtures/histories');

export async function recordFixture(_client: Client, turnId: string, name: string): Promise<void> {
  if (process.env.TILLER_RECORD_FIXTURES !== '1') return;
  const cli = process.env.TILLER_TEST_TEMPORAL_CLI!;
  const address = process.env.TILLER_TEST_TEMPORAL_ADDRESS!;
  const json = execFileSync(cli, ['workflow', 'show', '--workflow-id', turnId, '--address', address, '-o', 'json'], {
    encoding: 'utf8',
  });
  fs.mkdirSync(FIXTURE_DIR, { recursive: true });
  fs.writeFileSync(path.join(FIXTURE_DIR, `${name}.json`), json);
}
