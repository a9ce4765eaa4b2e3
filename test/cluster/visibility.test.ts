/**
 * The cluster's visibility database indexes a search attribute only for the rows that set it
 * (deploy/postgres/visibility.sql, which `cluster up` applies): the indexes are partial, a query on an
 * attribute still uses its index, and the inbox's query finds a waiting turn through them.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CLUSTER_DIR, readState } from '../../scripts/cluster/index';
import { useSecuredCluster } from './support';

const { connect, waitingTurn } = useSecuredCluster();

/** `sql` in the visibility database as the cluster's own role, unaligned rows. */
function visibilitySql(sql: string): Promise<string> {
  const state = readState()!;
  const password = fs.readFileSync(path.join(CLUSTER_DIR, 'postgres-password'), 'utf8').trim();
  const args = ['-X', '-tA', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', String(state.postgres.port)];
  return new Promise((resolve, reject) =>
    execFile(
      path.join(state.postgres.bin, 'psql'),
      [...args, '-U', 'temporal', '-d', 'temporal_visibility', '-c', sql],
      { env: { PATH: process.env.PATH, PGPASSWORD: password, PGCONNECT_TIMEOUT: '5' }, timeout: 60_000 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
    ),
  );
}

const INDEXES = `SELECT i.relname, a.attname, a.attgenerated = 's', x.indpred IS NOT NULL
  FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
  LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = x.indkey[1]
  WHERE t.relname = 'executions_visibility' ORDER BY 1`;

test('every search attribute but the namespace division is indexed only where it is set', async () => {
  const rows = (await visibilitySql(INDEXES))
    .trim()
    .split('\n')
    .map((line) => line.split('|'));
  const partial = rows.filter(([, , , p]) => p === 't').map(([name]) => name);
  const full = rows.filter(([, , , p]) => p === 'f').map(([name]) => name);
  expect(
    rows.filter(([, col, generated, p]) => generated === 't' && p === 'f' && col !== 'temporalnamespacedivision'),
  ).toEqual([]);
  expect(rows.filter(([, , generated, p]) => generated !== 't' && p === 't')).toEqual([]); // the server's own columns
  expect(partial).toEqual(expect.arrayContaining(['by_keyword_01', 'by_text_01', 'by_build_ids']));
  expect(full).toEqual(expect.arrayContaining(['default_idx', 'by_workflow_id', 'by_temporal_namespace_division']));
  expect(partial.length).toBeGreaterThan(full.length);
});

test('a query on an attribute still uses its partial index', async () => {
  const plan = await visibilitySql(`SET enable_seqscan = off;
    EXPLAIN SELECT run_id FROM executions_visibility
      WHERE namespace_id = 'ns' AND temporalnamespacedivision IS NULL AND keyword01 = 'awaiting_approval'
      ORDER BY COALESCE(close_time, '9999-12-31 23:59:59') DESC, start_time DESC, run_id`);
  expect(plan).toMatch(/by_keyword_01/);
});

test("the inbox's query finds a waiting turn", async () => {
  const { turnId } = await waitingTurn('visibility');
  const reader = await connect('reader');
  const query = `TillerStatus = "awaiting_approval" AND WorkflowId = "${turnId}"`;
  const deadline = Date.now() + 30_000;
  let found: string[] = [];
  while (found.length === 0 && Date.now() < deadline) {
    found = [];
    for await (const w of reader.temporal.workflow.list({ query })) found.push(w.workflowId);
    // Visibility is written by the history service's queue after the turn's own task.
    if (found.length === 0) await new Promise((r) => setTimeout(r, 250));
  }
  expect(found).toEqual([turnId]);
});
