import { CHANGE_TRACKING_SCHEMA } from '@svc/contracts';
import {
  SERVER_MAJOR_VERSION_SQL,
  SOURCE_COMPATIBILITY_LEVEL_SQL,
  SOURCE_SEES_USERS_SQL,
  SOURCE_SQL_USERS_SQL,
  SQL_SERVER_LIST_SQL,
} from '@svc/sqlserver/common';
import { sourceSql } from '@svc/sqlserver/source';
import { stagingSql } from '@svc/sqlserver/staging';
import { CHANGE_TRACKING_MODEL_SCHEMA as MODEL } from './change-tracking-model';

/**
 * Statements answered by their exact text: those that read SQL Server's catalog views and server properties, which
 * PostgreSQL does not have, and the staging protocol's IF/ELSE and @@ROWCOUNT blocks (run by the runtime's functions,
 * tsql-runtime.ts). Each entry is the PostgreSQL statement and the @parameters of its $1, $2…, in order. What the model
 * answers for the server itself: SQL Server 2022 (major version 16, Enterprise: EngineEdition 3), compatibility level
 * 160, no SQL users to replicate, a login that sees every table.
 */
export interface FixedStatement {
  text: string;
  parameters: readonly string[];
}

/** Schemas of the model's own, never a user's table. */
const MODEL_SCHEMAS = `('pg_catalog', 'information_schema', '${MODEL}', 'tsql', 'sys', '${CHANGE_TRACKING_SCHEMA}', '${stagingSql.CONTROL_SCHEMA}')`;

const userTables = (alias: string) => `${alias}.relkind IN ('r', 'p') AND NOT ${alias}.relispartition`;

/** DISCOVER_COLUMNS_SQL's rows: every column of every user table (or of the one @table names), its type as sys.columns holds it. */
const CATALOG_SQL = `SELECT n.nspname::text AS table_schema, c.relname::text AS table_name, a.attname::text AS column_name,
  t.type_name, 0 AS is_clr_type, t.max_length, t.precision, t.scale,
  CASE WHEN a.attnotnull THEN 0 ELSE 1 END AS is_nullable,
  CASE WHEN t.type_name IN ('nvarchar', 'nchar') THEN 'Latin1_General_100_BIN2' END AS collation_name,
  CASE WHEN a.atthasdef OR a.attidentity <> '' OR a.attgenerated <> '' THEN 1 ELSE 0 END AS has_default,
  array_position(pk.conkey, a.attnum)::int AS key_ordinal,
  greatest(c.reltuples, 0)::bigint::text AS estimated_rows
FROM pg_class AS c
JOIN pg_namespace AS n ON n.oid = c.relnamespace
JOIN pg_attribute AS a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
CROSS JOIN LATERAL tsql.column_type(a.atttypid, a.atttypmod) AS t
LEFT JOIN pg_constraint AS pk ON pk.conrelid = c.oid AND pk.contype = 'p'
WHERE ${userTables('c')} AND n.nspname NOT IN ${MODEL_SCHEMAS} AND n.nspname NOT LIKE 'pg\\_%'
  AND ($1::text IS NULL OR c.oid = ${MODEL}.object_id($1::text))
ORDER BY n.nspname, c.relname, a.attnum`;

/** SQL_SERVER_LIST_SQL's rows: one per key column (one with a NULL key column for a table without a key). */
const LIST_SQL = `SELECT n.nspname::text AS "schema", c.relname::text AS "name", a.attname::text AS key_column, greatest(c.reltuples, 0)::bigint AS estimated_rows
FROM pg_class AS c
JOIN pg_namespace AS n ON n.oid = c.relnamespace
LEFT JOIN pg_constraint AS pk ON pk.conrelid = c.oid AND pk.contype = 'p'
LEFT JOIN LATERAL unnest(pk.conkey) WITH ORDINALITY AS k(attnum, ordinal) ON true
LEFT JOIN pg_attribute AS a ON a.attrelid = c.oid AND a.attnum = k.attnum
WHERE ${userTables('c')} AND n.nspname NOT IN ${MODEL_SCHEMAS} AND n.nspname NOT LIKE 'pg\\_%'
ORDER BY n.nspname, c.relname, k.ordinal`;

const STAGING_TABLE = 'tsql.table_oid($1::text, $2::text)';

const STAGING_COLUMN_TYPES_SQL = `SELECT a.attname::text AS name, t.type_name, 0 AS is_clr_type, t.max_length, t.precision, t.scale,
  CASE WHEN a.attnotnull THEN 0 ELSE 1 END AS is_nullable, array_position(pk.conkey, a.attnum)::int AS key_ordinal,
  CASE WHEN t.type_name IN ('nvarchar', 'nchar') THEN 'Latin1_General_100_BIN2' END AS collation_name
FROM pg_attribute AS a
CROSS JOIN LATERAL tsql.column_type(a.atttypid, a.atttypmod) AS t
LEFT JOIN pg_constraint AS pk ON pk.conrelid = a.attrelid AND pk.contype = 'p'
WHERE a.attrelid = ${STAGING_TABLE} AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum`;

const utcNow = "(clock_timestamp() AT TIME ZONE 'UTC')";
const control = (table: string) => `${stagingSql.CONTROL_SCHEMA}.${table}`;

/** The control tables (CONTROL_SCHEMA_SQL), in PostgreSQL's spelling of the same columns. */
const CONTROL_TABLES = [
  `CREATE SCHEMA IF NOT EXISTS ${stagingSql.CONTROL_SCHEMA}`,
  `CREATE TABLE IF NOT EXISTS ${control('applied_batches')} (
  batch_key bytea NOT NULL PRIMARY KEY, batch_id text NOT NULL, applied_at timestamp(3) NOT NULL DEFAULT ${utcNow})`,
  `CREATE TABLE IF NOT EXISTS ${control('table_seeds')} (
  replication_id varchar(64) NOT NULL, "schema" varchar(128) NOT NULL, name varchar(128) NOT NULL, seed_id varchar(400) NOT NULL,
  started_at timestamp(6) NOT NULL DEFAULT ${utcNow}, truncated tsql.bit NOT NULL DEFAULT 1, PRIMARY KEY (replication_id, "schema", name))`,
  `CREATE TABLE IF NOT EXISTS ${control('owned_tables')} (
  "schema" varchar(128) NOT NULL, name varchar(128) NOT NULL, recorded_at timestamp(3) NOT NULL DEFAULT ${utcNow}, PRIMARY KEY ("schema", name))`,
  `CREATE TABLE IF NOT EXISTS ${control('table_fences')} (
  replication_id varchar(64) NOT NULL, "schema" varchar(128) NOT NULL, name varchar(128) NOT NULL, epoch bigint NOT NULL,
  raised_at timestamp(3) NOT NULL DEFAULT ${utcNow}, PRIMARY KEY (replication_id, "schema", name))`,
];

const fixed = (text: string, ...parameters: string[]): FixedStatement => ({ text, parameters });

const ENTRIES: readonly [string, FixedStatement][] = [
  // The source.
  [sourceSql.SNAPSHOT_ISOLATION_STATE_SQL, fixed(`SELECT snapshot_isolation_state AS state FROM ${MODEL}.database_state`)],
  [sourceSql.ALLOW_SNAPSHOT_ISOLATION_SQL, fixed(`UPDATE ${MODEL}.database_state SET snapshot_isolation_state = 1 WHERE snapshot_isolation_state = 0`)],
  [sourceSql.SOURCE_INCARNATION_SQL, fixed(`SELECT incarnation FROM ${MODEL}.database_state`)],
  [sourceSql.DISCOVER_COLUMNS_SQL, fixed(CATALOG_SQL, 'table')],
  // HAS_PERMS_BY_NAME: NULL for a securable it cannot find; the model grants every table.
  [
    sourceSql.VIEW_CHANGE_TRACKING_PERMISSION_SQL,
    fixed(`SELECT CASE WHEN ${MODEL}.object_id($1::text) IS NULL THEN NULL ELSE 1 END AS may_view_changes, current_user::text AS user_name`, 'table'),
  ],
  [
    sourceSql.ROWS_ESTIMATE_SQL,
    fixed(`SELECT coalesce((SELECT greatest(c.reltuples, 0)::bigint FROM pg_class AS c WHERE c.oid = ${MODEL}.object_id($1::text)), 0)::text AS estimate`, 'table'),
  ],
  // The heap's pages for both: PostgreSQL keeps no clustered index, and TABLESAMPLE SYSTEM samples the heap's pages.
  [
    sourceSql.TABLE_SIZE_SQL,
    fixed(
      `SELECT coalesce(pg_table_size(o.oid), 0)::text AS bytes, coalesce(pg_relation_size(o.oid) / 8192, 0)::text AS pages FROM (SELECT ${MODEL}.object_id($1::text)::regclass AS oid) AS o`,
      'table',
    ),
  ],
  [SQL_SERVER_LIST_SQL, fixed(LIST_SQL)],
  [SERVER_MAJOR_VERSION_SQL, fixed('SELECT 16 AS major_version, 3 AS engine_edition')],
  [SOURCE_COMPATIBILITY_LEVEL_SQL, fixed('SELECT 160 AS compatibility_level')],
  [SOURCE_SQL_USERS_SQL, fixed('SELECT NULL::text AS user_name, NULL::text AS login_name, NULL::text AS default_schema_name, NULL::text AS role_name WHERE false')],
  [SOURCE_SEES_USERS_SQL, fixed('SELECT 1 AS sees_users')],
  ['select 1', fixed('select 1')],
  // The staging protocol.
  [stagingSql.APPLICATION_LOCK_SQL, fixed('SELECT tsql.getapplock($1::text) AS granted', 'resource')],
  [stagingSql.APPLICATION_LOCK_SHARED_SQL, fixed('SELECT tsql.getapplock_shared($1::text) AS granted', 'resource')],
  ...stagingSql.CONTROL_SCHEMA_SQL.map((statement, index): [string, FixedStatement] => [statement, fixed(CONTROL_TABLES[index] ?? '')]),
  [stagingSql.RAISE_FENCE_SQL, fixed('SELECT tsql.raise_fence($1::text, $2::text, $3::text, $4::bigint) AS stale', 'replication', 'schema', 'name', 'epoch')],
  [stagingSql.RECORD_BATCH_SQL, fixed('SELECT tsql.record_batch($1::text) AS recorded', 'batch_id')],
  [
    `${stagingSql.FORGET_APPLIED_BATCHES_SQL};\nSELECT @@ROWCOUNT AS forgotten`,
    fixed(`WITH gone AS (DELETE FROM ${control('applied_batches')} WHERE applied_at < $1::timestamp RETURNING 1) SELECT count(*)::int AS forgotten FROM gone`, 'before'),
  ],
  [
    stagingSql.SHARED_TABLE_SQL,
    fixed(
      `SELECT CASE WHEN EXISTS (SELECT 1 FROM ${control('table_fences')} WHERE "schema" = $2::text AND name = $3::text AND replication_id <> $1::text
        AND raised_at > ${utcNow} - interval '7 days') THEN 1 ELSE 0 END AS shared`,
      'replication',
      'schema',
      'name',
    ),
  ],
  [stagingSql.START_SEED_SQL, fixed('SELECT tsql.start_seed($1::text, $2::text, $3::text, $4::text, $5::boolean)', 'replication', 'schema', 'name', 'seed_id', 'truncated')],
  [
    stagingSql.CURRENT_SEED_SQL,
    fixed(
      `SELECT seed.seed_id, seed.truncated::int AS truncated, CASE WHEN EXISTS (
        SELECT 1 FROM ${control('table_seeds')} AS newer
        WHERE newer."schema" = seed."schema" AND newer.name = seed.name AND newer.replication_id NOT IN ($1::text, '') AND newer.started_at > seed.started_at
      ) THEN 1 ELSE 0 END AS superseded
      FROM ${control('table_seeds')} AS seed
      WHERE seed.replication_id IN ($1::text, '') AND seed."schema" = $2::text AND seed.name = $3::text
      ORDER BY seed.replication_id DESC LIMIT 1`,
      'replication',
      'schema',
      'name',
    ),
  ],
  [stagingSql.RECORD_OWNED_TABLE_SQL, fixed(`INSERT INTO ${control('owned_tables')} ("schema", name) VALUES ($1::text, $2::text) ON CONFLICT DO NOTHING`, 'schema', 'name')],
  [
    stagingSql.TABLE_COLUMNS_SQL,
    fixed(`SELECT a.attname::text AS name FROM pg_attribute AS a WHERE a.attrelid = ${STAGING_TABLE} AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, 'schema', 'name'),
  ],
  [stagingSql.TABLE_COLUMN_TYPES_SQL, fixed(STAGING_COLUMN_TYPES_SQL, 'schema', 'name')],
  [stagingSql.PRIMARY_KEY_NAME_SQL, fixed(`SELECT conname::text AS name FROM pg_constraint WHERE conrelid = ${STAGING_TABLE} AND contype = 'p'`, 'schema', 'name')],
];

export const FIXED_STATEMENTS: ReadonlyMap<string, FixedStatement> = new Map(ENTRIES);
