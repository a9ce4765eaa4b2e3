-- Tiller's settings for Temporal's PostgreSQL visibility database (schema v12, server 1.32.2). Run after
-- every `temporal-sql-tool update-schema` of temporal_visibility, as its owner or a superuser:
--   psql -d temporal_visibility -v ON_ERROR_STOP=1 -f deploy/postgres/visibility.sql
-- `npm run cluster -- up` runs it (scripts/cluster/database.ts). Idempotent. docs/capacity.md has the
-- figures: the bytes a paused turn costs the visibility database, before and after.

-- 1. Vacuum executions_visibility after 1 % of it changed (and 200 rows), not PostgreSQL's default 20 %:
-- every search-attribute upsert writes a new version of a run's row and of its index entries, and the
-- dead ones are reused only once vacuumed.
ALTER TABLE executions_visibility SET (
  autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 200,
  autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_insert_threshold = 200);

-- 2. Index a search attribute only for the rows that set it. The schema indexes every search-attribute
-- column (58 of the table's 73 indexes), and PostgreSQL enters a row into a B-tree or GIN index whether
-- its column is NULL or not, so every version of every run's row went into all of them, most for
-- attributes that run never set (temporalio/temporal#10145). Each becomes `WHERE <column> IS NOT NULL`.
-- A query on an attribute (=, a range, IN, a text or list match) implies it is not NULL and uses the same
-- index; only `<attribute> IS NULL` scans another. TemporalNamespaceDivision keeps its full index: the
-- server adds `TemporalNamespaceDivision IS NULL` to every list query. The server's own columns (ids,
-- type, status, times, task queue, parents) are not search-attribute columns and keep theirs. An index a
-- later schema version adds is made partial by the next run of this file. On a large table this rebuilds
-- each index once, holding writes to the table meanwhile: run it while the server is stopped.
DO $$
DECLARE r record;
BEGIN
  FOR r IN
    SELECT i.relname AS name, a.attname AS col, pg_get_indexdef(i.oid) AS def
    FROM pg_index x
    JOIN pg_class i ON i.oid = x.indexrelid
    JOIN pg_class t ON t.oid = x.indrelid
    JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = x.indkey[1]
    WHERE t.relname = 'executions_visibility' AND t.relnamespace = 'public'::regnamespace
      AND x.indpred IS NULL AND a.attgenerated = 's' AND a.attname <> 'temporalnamespacedivision'
  LOOP
    EXECUTE format('DROP INDEX %I', r.name);
    EXECUTE r.def || format(' WHERE %I IS NOT NULL', r.col);
  END LOOP;
END $$;
