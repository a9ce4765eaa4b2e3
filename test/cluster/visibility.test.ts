/**
 * The cluster's visibility database indexes a search attribute only for the rows that set it
 * (deploy/postgres/visibility.sql, which `cluster up` applies): the indexes are partial, a query on an
 * attribute still uses its index, and the inbox's query finds a waiting turn through them.
 */
import { databasePassword } from '../../scripts/cluster/database';
import { CLUSTER_DIR } from '../../scripts/cluster/index';
import { pollUntil } from '../support/wait';
import { clusterPsql, useSecuredCluster } from './support';

const { connect, waitingTurn } = useSecuredCluster();

/** `sql` in the visibility database as the cluster's own role: its rows, unaligned. */
async function visibilitySql(sql: string): Promise<string> {
  const { code, out } = await clusterPsql('root', databasePassword(CLUSTER_DIR).password, sql, 'temporal_visibility');
  if (code !== 0) throw new Error(`psql failed (${code}): ${out}`);
  return out;
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
  const list = async () => {
    const found: string[] = [];
    for await (const w of reader.temporal.workflow.list({ query })) found.push(w.workflowId);
    return found.length > 0 ? found : undefined; // visibility is written after the turn's own task
  };
  const found = await pollUntil(list, `a visibility query for ${turnId}`, 30_000, 250);
  expect(found).toEqual([turnId]);
});
