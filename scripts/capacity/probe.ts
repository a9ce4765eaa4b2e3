/**
 * What the cluster spends, read where it is spent: PostgreSQL's own counters (pg_stat_statements: the
 * statements, rows and WAL bytes of every query of the two Temporal databases, updated as each statement
 * ends; the WAL position; the databases' sizes) and, per process, CPU time and resident memory from
 * /proc. A snapshot is cheap (one psql call and a few /proc reads); two make a delta.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { processCpuMs } from '../bench/machine';
import type { Cluster } from '../cluster/types';

export interface PgConfig {
  bin: string;
  port: number;
  user: string;
  password: string;
}

/** Writes grouped by statement kind and table: `insert history_node`, `update executions` … */
export type WriteCounts = Record<string, { calls: number; rows: number }>;

export interface PgSnapshot {
  statements: number;
  writeStatements: number;
  /** Rows inserted and updated. */
  rowsWritten: number;
  /** Rows deleted: task clean-up, done in batches, so it trails the work that made the rows. */
  rowsDeleted: number;
  /** WAL bytes the statements generated (pg_stat_statements.wal_bytes). */
  statementWalBytes: number;
  /** The WAL position, in bytes: everything written, checkpoints and vacuum included. */
  walLsn: number;
  dbBytes: { temporal: number; visibility: number };
  writes: WriteCounts;
  /** Every other statement (reads, BEGIN, COMMIT) by its first word and the first table it reads. */
  reads: WriteCounts;
}

export interface Snapshot {
  at: number;
  pg: PgSnapshot;
  /** CPU ms of each cluster process (PostgreSQL: the postmaster, its backends and its reaped children). */
  cpuMs: Record<string, number>;
  rssBytes: Record<string, number>;
}

const SQL = `
SELECT 'stmt', coalesce(query_kind, 'read'), coalesce(tbl, ''), sum(calls)::bigint, sum(rows)::bigint, sum(wal_bytes)::bigint
FROM (
  SELECT s.calls, s.rows, s.wal_bytes,
    substring(lower(s.query) from '^\\s*(insert|update|delete)') AS query_kind,
    coalesce(
      substring(lower(s.query) from '(?:insert\\s+into|update|delete\\s+from)\\s+([a-z_]+)'),
      -- A read (or BEGIN, COMMIT …): its first word and the first table it reads.
      substring(lower(s.query) from '^\\s*([a-z]+)') || coalesce(' ' || substring(lower(s.query) from '\\sfrom\\s+([a-z_]+)'), '')
    ) AS tbl
  FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
  WHERE d.datname IN ('temporal', 'temporal_visibility') AND s.query NOT ILIKE '%pg_stat%'
) q GROUP BY 2, 3
UNION ALL SELECT 'lsn', pg_current_wal_lsn()::text, '', 0, 0, 0
UNION ALL SELECT 'size', 'temporal', '', pg_database_size('temporal'), 0, 0
UNION ALL SELECT 'size', 'visibility', '', pg_database_size('temporal_visibility'), 0, 0;
`;

const Row = z.tuple([z.string(), z.string(), z.string(), z.coerce.number(), z.coerce.number(), z.coerce.number()]);

function psql(pg: PgConfig, sql: string, db = 'temporal'): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      path.join(pg.bin, 'psql'),
      [
        '-h',
        '127.0.0.1',
        '-p',
        String(pg.port),
        '-U',
        pg.user,
        '-d',
        db,
        '-X',
        '-q',
        '-A',
        '-t',
        '-F',
        '\t',
        '-c',
        sql,
      ],
      { env: { ...process.env, PGPASSWORD: pg.password }, maxBuffer: 16 * 2 ** 20 },
      (err, stdout, stderr) => (err ? reject(new Error(`psql: ${stderr || err.message}`)) : resolve(stdout)),
    );
  });
}

/** pg_stat_statements in the `temporal` database (its library is preloaded by the capacity cluster). */
export async function enableStatements(pg: PgConfig): Promise<void> {
  await psql(pg, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements; SELECT pg_stat_statements_reset();');
}

/**
 * The visibility database's relations by size (tables, their indexes and TOAST), and the visibility
 * table's live and dead rows: where a paused turn's visibility bytes go.
 */
export async function visibilityRelations(pg: PgConfig): Promise<Record<string, number>> {
  const out = await psql(
    pg,
    `SELECT c.relname, pg_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname IN ('public', 'pg_toast') AND c.relkind IN ('r', 'i', 't') AND pg_relation_size(c.oid) > 0
     UNION ALL SELECT 'live rows', n_live_tup FROM pg_stat_user_tables WHERE relname = 'executions_visibility'
     UNION ALL SELECT 'dead rows', n_dead_tup FROM pg_stat_user_tables WHERE relname = 'executions_visibility'
     UNION ALL SELECT 'row updates', n_tup_upd FROM pg_stat_user_tables WHERE relname = 'executions_visibility'
     UNION ALL SELECT 'HOT updates', n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'executions_visibility';`,
    'temporal_visibility',
  );
  const sizes: Record<string, number> = {};
  for (const line of out.split('\n').filter(Boolean)) {
    const [name = '', bytes = '0'] = line.split('\t');
    sizes[name] = Number(bytes);
  }
  return sizes;
}

function lsnBytes(lsn: string): number {
  const [hi = '0', lo = '0'] = lsn.split('/');
  return parseInt(hi, 16) * 2 ** 32 + parseInt(lo, 16);
}

export async function pgSnapshot(pg: PgConfig): Promise<PgSnapshot> {
  const out = await psql(pg, SQL);
  const snap: PgSnapshot = {
    statements: 0,
    writeStatements: 0,
    rowsWritten: 0,
    rowsDeleted: 0,
    statementWalBytes: 0,
    walLsn: 0,
    dbBytes: { temporal: 0, visibility: 0 },
    writes: {},
    reads: {},
  };
  for (const line of out.split('\n').filter(Boolean)) {
    const [kind, a, table, calls, rows, wal] = Row.parse(line.split('\t'));
    if (kind === 'lsn') snap.walLsn = lsnBytes(a);
    else if (kind === 'size') snap.dbBytes[a as 'temporal' | 'visibility'] = calls;
    else {
      snap.statements += calls;
      snap.statementWalBytes += wal;
      if (a === 'read') {
        const r = (snap.reads[table] ??= { calls: 0, rows: 0 });
        r.calls += calls;
        r.rows += rows;
      } else {
        snap.writeStatements += calls;
        if (a === 'delete') snap.rowsDeleted += rows;
        else snap.rowsWritten += rows;
        const key = `${a} ${table}`;
        const w = (snap.writes[key] ??= { calls: 0, rows: 0 });
        w.calls += calls;
        w.rows += rows;
      }
    }
  }
  return snap;
}

function statFields(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The postmaster's CPU with its live children's and the children it has reaped (cutime + cstime). */
function postgresCpuMs(postmaster: number): number {
  const own = statFields(postmaster);
  if (!own) return 0;
  const ticks = (f: string[], from: number) => Number(f[from]) + Number(f[from + 1]);
  let total = ticks(own, 11) + ticks(own, 13);
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const f = statFields(Number(entry));
    if (f && Number(f[1]) === postmaster) total += ticks(f, 11);
  }
  return (total * 1000) / 100;
}

export function rssBytes(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export async function snapshot(cluster: Cluster, pg: PgConfig): Promise<Snapshot> {
  const cpuMs: Record<string, number> = { driver: (process.cpuUsage().user + process.cpuUsage().system) / 1000 };
  const rss: Record<string, number> = { driver: process.memoryUsage.rss() };
  for (const p of cluster.processes()) {
    if (!p.pid) continue;
    cpuMs[p.name] = p.role === 'postgres' ? postgresCpuMs(p.pid) : (processCpuMs(p.pid) ?? 0);
    if (p.role !== 'postgres') rss[p.name] = rssBytes(p.pid);
  }
  return { at: performance.now(), pg: await pgSnapshot(pg), cpuMs, rssBytes: rss };
}

export interface Delta {
  seconds: number;
  statements: number;
  writeStatements: number;
  rowsWritten: number;
  rowsDeleted: number;
  statementWalBytes: number;
  walBytes: number;
  dbBytes: number;
  writes: WriteCounts;
  /** Every other statement (reads, BEGIN, COMMIT) by its first word and the first table it reads. */
  reads: WriteCounts;
  /** CPU ms per process name; workers summed as `workers`. */
  cpuMs: Record<string, number>;
}

function countsDelta(a: WriteCounts, b: WriteCounts): WriteCounts {
  const out: WriteCounts = {};
  for (const [key, w] of Object.entries(b)) {
    const before = a[key] ?? { calls: 0, rows: 0 };
    if (w.calls > before.calls) out[key] = { calls: w.calls - before.calls, rows: w.rows - before.rows };
  }
  return out;
}

export function delta(a: Snapshot, b: Snapshot): Delta {
  const writes = countsDelta(a.pg.writes, b.pg.writes);
  const reads = countsDelta(a.pg.reads, b.pg.reads);
  const cpuMs: Record<string, number> = {};
  for (const [name, ms] of Object.entries(b.cpuMs)) {
    const key = name.startsWith('worker-') ? 'workers' : name;
    // A process started between the two (a worker brought back) counts from zero.
    cpuMs[key] = (cpuMs[key] ?? 0) + ms - (a.cpuMs[name] ?? 0);
  }
  return {
    seconds: (b.at - a.at) / 1000,
    statements: b.pg.statements - a.pg.statements,
    writeStatements: b.pg.writeStatements - a.pg.writeStatements,
    rowsWritten: b.pg.rowsWritten - a.pg.rowsWritten,
    rowsDeleted: b.pg.rowsDeleted - a.pg.rowsDeleted,
    statementWalBytes: b.pg.statementWalBytes - a.pg.statementWalBytes,
    walBytes: b.pg.walLsn - a.pg.walLsn,
    dbBytes: b.pg.dbBytes.temporal + b.pg.dbBytes.visibility - a.pg.dbBytes.temporal - a.pg.dbBytes.visibility,
    writes,
    reads,
    cpuMs,
  };
}
