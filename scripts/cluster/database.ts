/**
 * The Temporal server's database, on the cluster's PostgreSQL (./postgres.ts): a `temporal` role that
 * is not a superuser, may not create databases or roles, and owns only `temporal` and
 * `temporal_visibility` (no one else may connect to them; it may connect to nothing else); its password
 * random per cluster, kept in a 0600 file in the cluster directory and handed to programs by
 * environment (the server's POSTGRES_PWD, temporal-sql-tool's SQL_PASSWORD), never in argv.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ServerBinaries } from './binaries';
import type { Postgres } from './postgres';

export const DB_USER = 'temporal';
export const DATABASES = ['temporal', 'temporal_visibility'] as const;

/** The role's password: made once per cluster directory (0600), read on every `up`. */
export function databasePassword(clusterDir: string): { file: string; password: string } {
  const file = path.join(clusterDir, 'postgres-password');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  }
  fs.chmodSync(file, 0o600);
  return { file, password: fs.readFileSync(file, 'utf8').trim() };
}

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * The role (its password set again each time) and its two databases; the SQL goes over stdin. When the
 * server preloads pg_stat_statements (the capacity run), the superuser makes the extension in `temporal`
 * and lets the role reset it: the role reads its own statements' figures, nothing more.
 */
export function ensureDatabaseRole(pg: Postgres, password: string): void {
  const dbs = DATABASES.map(literal).join(', ');
  pg.psql(`
SET password_encryption = 'scram-sha-256';
SELECT 'CREATE ROLE ${DB_USER}' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${DB_USER}') \\gexec
ALTER ROLE ${DB_USER} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${literal(password)};
SELECT format('CREATE DATABASE %I OWNER ${DB_USER}', d) FROM unnest(ARRAY[${dbs}]) AS d
  WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = d) \\gexec
SELECT format('ALTER DATABASE %I OWNER TO ${DB_USER}', d) FROM unnest(ARRAY[${dbs}]) AS d \\gexec
SELECT format('REVOKE ALL ON DATABASE %I FROM PUBLIC', datname) FROM pg_database WHERE datallowconn \\gexec
SELECT format('GRANT CONNECT, TEMPORARY ON DATABASE %I TO ${DB_USER}', d) FROM unnest(ARRAY[${dbs}]) AS d \\gexec
`);
  if (/pg_stat_statements/.test(pg.opts.settings?.shared_preload_libraries ?? '')) {
    pg.psql(
      `CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
GRANT EXECUTE ON FUNCTION pg_stat_statements_reset TO ${DB_USER};`,
      'temporal',
    );
  }
}

/** The schema of both databases, as docker-compose.yml's temporal-schema job makes it (the password by environment). */
export function ensureSchema(bins: ServerBinaries, pg: Postgres, password: string, log: (line: string) => void): void {
  const base = ['--plugin', 'postgres12', '--ep', '127.0.0.1', '-p', String(pg.opts.port), '-u', DB_USER];
  const env = { ...process.env, SQL_PASSWORD: password };
  const sql = (args: string[]) => spawnSync(bins.sqlTool, [...base, ...args], { encoding: 'utf8', env });
  for (const [db, dir] of [
    ['temporal', 'temporal'],
    ['temporal_visibility', 'visibility'],
  ] as const) {
    const fresh = pg.psql(`SELECT to_regclass('public.schema_version') IS NULL;`, db).trim() === 't';
    if (fresh) {
      const setup = sql(['--db', db, 'setup-schema', '-v', '0.0']);
      if (setup.status !== 0) throw new Error(`setup-schema ${db}: ${setup.stderr}${setup.stdout}`);
    }
    const update = sql(['--db', db, 'update-schema', '-d', path.join(bins.postgresSchema, dir, 'versioned')]);
    if (update.status !== 0) throw new Error(`update-schema ${db}: ${update.stderr}${update.stdout}`);
  }
  log(`schema: temporal and temporal_visibility up to date (role ${DB_USER}, not a superuser)`);
}

/** Tiller's settings for the visibility database: its vacuum and search-attribute indexes (the file says why). */
export const VISIBILITY_SQL = path.resolve(__dirname, '../../deploy/postgres/visibility.sql');

/** Applies deploy/postgres/visibility.sql; the number of partial indexes `executions_visibility` then has. */
export function tuneVisibility(pg: Postgres): number {
  const partial = pg.psql(
    `${fs.readFileSync(VISIBILITY_SQL, 'utf8')}
SELECT count(*) FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid
  WHERE t.relname = 'executions_visibility' AND x.indpred IS NOT NULL;`,
    'temporal_visibility',
  );
  return Number(partial.trim());
}

/** The role, the databases and their schema on a started server; a failure stops the server again. */
export async function prepareDatabase(
  bins: ServerBinaries,
  pg: Postgres,
  password: string,
  log: (line: string) => void,
): Promise<void> {
  try {
    ensureDatabaseRole(pg, password);
    ensureSchema(bins, pg, password, log);
    const partial = tuneVisibility(pg);
    log(`visibility: vacuum at 1 %; ${partial} search-attribute indexes keep only the rows that set them`);
  } catch (err) {
    await pg.stop('fast').catch(() => undefined);
    throw err;
  }
}
