/**
 * Every history the test suite recorded (test/fixtures/histories, `npm run record-fixtures`: turns run
 * on the suite's Temporal dev server, and the long waits on the SDK's time-skipping test server) must
 * replay against the current workflow code: the guard that keeps paused turns resumable across deploys.
 * Every one of them: each name recorded in workflow-ids.json must have its history here (issue 34: a
 * lost file went unnoticed while three remained).
 * They replay with the payload guard every worker has (src/codec/guard.ts), as `tiller replay` does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { quietRuntime } from '../support/harness';
import { FIXTURE_DIR, fixtureWorkflowIds } from '../support/fixtures';
import { PRELOAD_MODULES, workflowsPath } from '../../src/worker/plugin';
import { withPayloadGuard } from '../../src/codec/guard';

const files = fs.existsSync(FIXTURE_DIR)
  ? fs
      .readdirSync(FIXTURE_DIR)
      .filter((f) => f.endsWith('.json') && f !== 'workflow-ids.json')
      .sort()
  : [];
const ids = fixtureWorkflowIds();

/** Histories committed as of issue 36 (the window-in-model-call recordings, the inline sessions); a new recording raises it. */
const COMMITTED = 71;

test('every committed history is here: one per name in workflow-ids.json, and none fewer than committed', () => {
  const names = files.map((f) => path.basename(f, '.json'));
  expect([...names].sort()).toEqual(Object.keys(ids).sort());
  expect(names.length).toBeGreaterThanOrEqual(COMMITTED);
});

test('every recorded history replays without non-determinism', async () => {
  quietRuntime();
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath,
    preloadModules: [...PRELOAD_MODULES],
    logger: silent,
  });
  const histories = files.map((f) => ({
    workflowId: ids[path.basename(f, '.json')] ?? path.basename(f, '.json'),
    history: historyFromJSON(JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, f), 'utf8'))),
  }));
  const failures: string[] = [];
  let replayed = 0;
  for await (const result of Worker.runReplayHistories(
    { workflowBundle, dataConverter: withPayloadGuard() },
    histories,
  )) {
    replayed++;
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  expect(failures).toEqual([]);
  expect(replayed).toBe(files.length);
});

const noop = () => undefined;
const silent = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: console.error };
