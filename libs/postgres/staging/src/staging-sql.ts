import { CHANGE_OPERATION_COLUMN, type ColumnDefinition, type TableDefinition, type TableRef } from '@svc/contracts';
import type { TableRebuild } from '@svc/postgres/common';
import { checkedTypeText, columnList, portableTypeOf, qualifiedName, quoteIdent } from './identifiers';

/** Schema of the stager's own bookkeeping in the staging database. */
export const CONTROL_SCHEMA = 'svc_staging';

/*
 * Lock order of every stager transaction (docs/PIPELINE.md, "Lock order"), so that no two wait for each other
 * in a cycle: (1) DDL_LOCK_SQL, only in ensureTable and the control schema's creation, never in a batch's
 * transaction; (2) TABLE_LOCK_SQL of the one table the transaction works on; (3) only then anything of that
 * table: its fence and seed rows, its batches' log rows (a batch id names its table), the staging table itself
 * (TRUNCATE, COPY, DELETE, INSERT, ALTER TABLE). Two transactions on different tables share nothing after
 * (2); two on one table are serialised by it. Housekeeping, which touches every table's log rows without
 * (2), skips rows held by others (FORGET_APPLIED_BATCHES_SQL): it never waits.
 */

/**
 * Serialises DDL of every stager on the database: `CREATE ... IF NOT EXISTS` run concurrently can still
 * fail on the catalog's unique indexes, and two stagers must not both add the same column.
 */
export const DDL_LOCK_SQL = `SELECT pg_advisory_xact_lock(hashtext('${CONTROL_SCHEMA}.ddl'))`;

/** ALTER TABLE … ADD COLUMN, only when the control table lacks the column (the check takes no lock on the table). */
function addColumnIfMissingSql(table: string, column: string, definition: string): string {
  return `DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute
                  WHERE attrelid = '${CONTROL_SCHEMA}.${table}'::regclass AND attname = '${column}' AND NOT attisdropped) THEN
    ALTER TABLE ${CONTROL_SCHEMA}.${table} ADD COLUMN ${column} ${definition};
  END IF;
END
$$`;
}

export const CONTROL_SCHEMA_SQL: readonly string[] = [
  `CREATE SCHEMA IF NOT EXISTS ${CONTROL_SCHEMA}`,
  `CREATE TABLE IF NOT EXISTS ${CONTROL_SCHEMA}.applied_batches (
  batch_id text PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
)`,
  `CREATE TABLE IF NOT EXISTS ${CONTROL_SCHEMA}.table_seeds (
  replication_id text NOT NULL,
  schema text NOT NULL,
  name text NOT NULL,
  seed_id text NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  truncated boolean NOT NULL DEFAULT true,
  PRIMARY KEY (replication_id, schema, name)
)`,
  `CREATE TABLE IF NOT EXISTS ${CONTROL_SCHEMA}.table_fences (
  replication_id text NOT NULL,
  schema text NOT NULL,
  name text NOT NULL,
  epoch bigint NOT NULL,
  raised_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (replication_id, schema, name)
)`,
  // The tables the service created (docs/PIPELINE.md, "Tables the service owns"): no other table is written.
  `CREATE TABLE IF NOT EXISTS ${CONTROL_SCHEMA}.owned_tables (
  schema text NOT NULL,
  name text NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (schema, name)
)`,
  // Control tables of an older version: fences without a time, one seed record per table (replication ''
  // stands for "unknown"). ALTER TABLE locks a table exclusively even when it changes nothing, and every
  // connector runs these: so each runs only when the catalog says it is needed, and they lock the control
  // tables in the order a batch does (fences, then seeds), so that an upgrade cannot deadlock with batches.
  addColumnIfMissingSql('table_fences', 'raised_at', 'timestamptz NOT NULL DEFAULT now()'),
  addColumnIfMissingSql('table_seeds', 'replication_id', "text NOT NULL DEFAULT ''"),
  addColumnIfMissingSql('table_seeds', 'truncated', 'boolean NOT NULL DEFAULT true'),
  `DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint WHERE conrelid = '${CONTROL_SCHEMA}.table_seeds'::regclass AND contype = 'p' AND cardinality(conkey) = 3) THEN
    ALTER TABLE ${CONTROL_SCHEMA}.table_seeds DROP CONSTRAINT IF EXISTS table_seeds_pkey;
    ALTER TABLE ${CONTROL_SCHEMA}.table_seeds ADD PRIMARY KEY (replication_id, schema, name);
  END IF;
END
$$`,
];

/**
 * $1 schema, $2 name. Serialises batches of one table: two replications sharing a staging database (or two
 * stagers) would otherwise race between one batch's DELETE and the other's INSERT of the same key.
 */
export const TABLE_LOCK_SQL = `SELECT pg_advisory_xact_lock(hashtext('${CONTROL_SCHEMA}.table:' || $1 || '.' || $2))`;

/** The same lock in shared mode (chunks of one seed hold it together; TABLE_LOCK_SQL waits for all of them). */
export const TABLE_LOCK_SHARED_SQL = `SELECT pg_advisory_xact_lock_shared(hashtext('${CONTROL_SCHEMA}.table:' || $1 || '.' || $2))`;

/** $1 replication, $2 schema, $3 name: the table's fence, or no row before its first batch. */
export const FENCE_EPOCH_SQL = `SELECT epoch FROM ${CONTROL_SCHEMA}.table_fences WHERE replication_id = $1 AND schema = $2 AND name = $3`;

/**
 * $1 replication, $2 schema, $3 name, $4 the batch's epoch. Raises the table's fence to the epoch and
 * returns a row; returns none, changing nothing, when the fence is above it (the batch is stale).
 */
export const RAISE_FENCE_SQL = `INSERT INTO ${CONTROL_SCHEMA}.table_fences AS fence (replication_id, schema, name, epoch) VALUES ($1, $2, $3, $4)
ON CONFLICT (replication_id, schema, name) DO UPDATE SET epoch = EXCLUDED.epoch, raised_at = now()
WHERE fence.epoch <= EXCLUDED.epoch
RETURNING fence.epoch`;

/** $1 replication, $2 schema, $3 name, $4 the batch's epoch: one row with `stale`, or none before the table's first batch. */
export const FENCE_STALE_SQL = `SELECT epoch > $4::bigint AS stale FROM ${CONTROL_SCHEMA}.table_fences WHERE replication_id = $1 AND schema = $2 AND name = $3`;

/** Affects one row when the batch is new; none when it was applied before (a concurrent twin waits for the first to commit). */
export const RECORD_BATCH_SQL = `INSERT INTO ${CONTROL_SCHEMA}.applied_batches (batch_id) VALUES ($1) ON CONFLICT (batch_id) DO NOTHING`;

/** $1 a batch id: one row when it was applied. */
export const HAS_APPLIED_SQL = `SELECT 1 FROM ${CONTROL_SCHEMA}.applied_batches WHERE batch_id = $1`;

/**
 * $1 a timestamp: forgets batches applied before it. Rows another session holds (another stager forgetting
 * the same rows, a batch being recorded again) are skipped, not waited for: housekeeping never waits for a
 * lock, so it can never be part of a deadlock; what it skips goes at its next run.
 */
export const FORGET_APPLIED_BATCHES_SQL = `DELETE FROM ${CONTROL_SCHEMA}.applied_batches
WHERE batch_id IN (SELECT batch_id FROM ${CONTROL_SCHEMA}.applied_batches WHERE applied_at < $1 FOR UPDATE SKIP LOCKED)`;

/**
 * $1 replication, $2 schema and $3 name of one table or both null for every table: deletes the replication's fence or
 * seed records (a deleted replication's, a table's that left it). Rows another session holds are skipped, never waited
 * for (as FORGET_APPLIED_BATCHES_SQL): they age out after a week.
 */
export function forgetRecordsSql(records: 'table_fences' | 'table_seeds'): string {
  return `DELETE FROM ${CONTROL_SCHEMA}.${records}
WHERE (replication_id, schema, name) IN (
  SELECT replication_id, schema, name FROM ${CONTROL_SCHEMA}.${records}
  WHERE replication_id = $1 AND ($2::text IS NULL OR (schema = $2 AND name = $3))
  FOR UPDATE SKIP LOCKED
)`;
}

/**
 * Each replication writing a staging table keeps its own seed record, fence and batch log: two replications of one
 * source may share a staging database, and so its tables (docs/PIPELINE.md, "Staging tables shared by replications").
 */

/**
 * $1 replication, $2 schema, $3 name: one row with `shared` true when another replication applied a batch to the
 * table within the last week (a deleted replication's fence stops counting then).
 */
export const SHARED_TABLE_SQL = `SELECT EXISTS (
  SELECT 1 FROM ${CONTROL_SCHEMA}.table_fences
  WHERE schema = $2 AND name = $3 AND replication_id <> $1 AND raised_at > now() - interval '7 days'
) AS shared`;

/** $1 replication, $2 schema, $3 name, $4 seed id, $5 whether its part 0 emptied the table. */
/** The start is taken under the table's lock (clock, not transaction time), so it orders seeds as they were applied. */
export const START_SEED_SQL = `INSERT INTO ${CONTROL_SCHEMA}.table_seeds (replication_id, schema, name, seed_id, truncated, started_at)
VALUES ($1, $2, $3, $4, $5, clock_timestamp())
ON CONFLICT (replication_id, schema, name) DO UPDATE SET seed_id = EXCLUDED.seed_id, started_at = EXCLUDED.started_at, truncated = EXCLUDED.truncated`;

/**
 * $1 replication, $2 schema, $3 name: the replication's current seed of the table (a record an older version kept
 * per table, replication '', stands in until the replication starts a seed of its own), and `superseded` when
 * another replication started a seed of the table after it. FOR SHARE: a later part waits for a concurrent part 0
 * of a new seed to commit or roll back.
 */
export const CURRENT_SEED_SQL = `SELECT seed.seed_id, seed.truncated, EXISTS (
  SELECT 1 FROM ${CONTROL_SCHEMA}.table_seeds AS newer
  WHERE newer.schema = seed.schema AND newer.name = seed.name AND newer.replication_id NOT IN ($1, '') AND newer.started_at > seed.started_at
) AS superseded
FROM ${CONTROL_SCHEMA}.table_seeds AS seed
WHERE seed.replication_id IN ($1, '') AND seed.schema = $2 AND seed.name = $3
ORDER BY seed.replication_id DESC
LIMIT 1
FOR SHARE OF seed`;

/** $1 schema, $2 name: one row when the service created (or adopted) the table. */
export const OWNED_TABLE_SQL = `SELECT 1 FROM ${CONTROL_SCHEMA}.owned_tables WHERE schema = $1 AND name = $2`;

/** $1 schema, $2 name: records the table as the service's (it is, or is being, created in this transaction). */
export const RECORD_OWNED_TABLE_SQL = `INSERT INTO ${CONTROL_SCHEMA}.owned_tables (schema, name) VALUES ($1, $2) ON CONFLICT (schema, name) DO NOTHING`;

/**
 * $1 schema, $2 name: `named` true when a fence or seed record names the table. Versions before owned_tables kept
 * only these; they exist for a table only once a batch was applied to it, which now needs the table to be owned.
 */
export const NAMED_BY_EARLIER_VERSION_SQL = `SELECT EXISTS (SELECT 1 FROM ${CONTROL_SCHEMA}.table_fences WHERE schema = $1 AND name = $2)
  OR EXISTS (SELECT 1 FROM ${CONTROL_SCHEMA}.table_seeds WHERE schema = $1 AND name = $2) AS named`;

/** One row with the table's column names in ordinal order, or no row when the table does not exist. */
export const TABLE_COLUMNS_SQL = `SELECT coalesce(array_agg(a.attname::text ORDER BY a.attnum) FILTER (WHERE a.attnum IS NOT NULL), '{}') AS columns
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p')
GROUP BY c.oid`;

/** $1 schema, $2 name: the table's columns with their types as format_type writes them, in ordinal order (no rows when it does not exist). */
export const TABLE_COLUMN_TYPES_SQL = `SELECT a.attname::text AS name, format_type(a.atttypid, a.atttypmod) AS type
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p')
ORDER BY a.attnum`;

/** Widens columns to the source's new types; PostgreSQL keeps each column's NOT NULL and rebuilds the indexes on it. */
export function alterColumnTypesSql(table: TableRef, columns: readonly { name: string; to: string }[]): string {
  const clauses = columns.map((column) => `  ALTER COLUMN ${quoteIdent(column.name)} TYPE ${checkedTypeText(column.name, column.to)}`);
  return `ALTER TABLE ${qualifiedName(table)}\n${clauses.join(',\n')}`;
}

export function createSchemaSql(table: TableRef): string {
  return `CREATE SCHEMA IF NOT EXISTS ${quoteIdent(table.schema)}`;
}

export function createTableSql(definition: TableDefinition): string {
  const lines = definition.columns.map((column) => `  ${columnDefinition(column, !column.nullable)}`);
  if (definition.primaryKey.length > 0) lines.push(`  PRIMARY KEY (${columnList(definition.primaryKey)})`);
  return `CREATE TABLE ${qualifiedName(definition.table)} (\n${lines.join(',\n')}\n)`;
}

/** Added columns are nullable: rows already in the table have no value for them. */
export function addColumnsSql(table: TableRef, columns: readonly ColumnDefinition[]): string {
  const clauses = columns.map((column) => `  ADD COLUMN ${columnDefinition(column, false)}`);
  return `ALTER TABLE ${qualifiedName(table)}\n${clauses.join(',\n')}`;
}

export function truncateSql(table: TableRef): string {
  return `TRUNCATE TABLE ${qualifiedName(table)}`;
}

export function copySeedRowsSql(definition: TableDefinition): string {
  return `COPY ${qualifiedName(definition.table)} (${columnList(columnNames(definition))}) FROM STDIN (FORMAT csv)`;
}

/** The batch's change rows land here first; it lives for the transaction only. */
const CHANGES_TABLE = 'pg_temp.svc_batch_changes';

/**
 * No NOT NULL on table columns: a delete row carries only its key. Seed rows merged into a shared table
 * (copyMergedSeedRowsSql) carry no operation: they are inserts. A group of change batches (applyChangeGroup) loads
 * several tables' rows in one transaction: the table of the member before goes first, in the same round trip.
 */
export function createChangesTableSql(definition: TableDefinition): string {
  if (definition.columns.some((column) => column.name === CHANGE_OPERATION_COLUMN)) {
    throw new Error(`a tracked table cannot have a column named ${CHANGE_OPERATION_COLUMN}: change rows lead with it`);
  }
  const operation = quoteIdent(CHANGE_OPERATION_COLUMN);
  const lines = [`  ${operation} text NOT NULL DEFAULT 'I' CHECK (${operation} IN ('I', 'U', 'D'))`, ...definition.columns.map((column) => `  ${columnDefinition(column, false)}`)];
  return `DROP TABLE IF EXISTS ${CHANGES_TABLE};\nCREATE TEMP TABLE svc_batch_changes (\n${lines.join(',\n')}\n) ON COMMIT DROP`;
}

/** Seed rows into the changes table, as inserts: merged by key like a change batch's. */
export function copyMergedSeedRowsSql(definition: TableDefinition): string {
  return `COPY ${CHANGES_TABLE} (${columnList(columnNames(definition))}) FROM STDIN (FORMAT csv)`;
}

export function copyChangeRowsSql(definition: TableDefinition): string {
  return `COPY ${CHANGES_TABLE} (${columnList([CHANGE_OPERATION_COLUMN, ...columnNames(definition)])}) FROM STDIN (FORMAT csv)`;
}

/** Gives the planner real row counts for the joins that follow (temp tables are never auto-analysed). */
export const ANALYZE_CHANGES_SQL = `ANALYZE ${CHANGES_TABLE}`;

/**
 * Every changed key loses its current row: deletes, updates (the new row follows) and inserts of a key already
 * present. Written as a semi-join so that a large batch scans the table in its physical order and deletes as it
 * goes; `DELETE … USING` let the planner hash the table and probe it in the batch's order, visiting heap pages at
 * random (2M changed keys of 2M rows: 3.2 s instead of 6.5 s, BENCHMARKS.md 2026-11-27). A small batch still gets
 * index lookups.
 */
export function deleteChangedKeysSql(definition: TableDefinition): string {
  // The subquery's columns are qualified: a name it lacked would otherwise bind to the outer table and match every row.
  return `DELETE FROM ${qualifiedName(definition.table)}
WHERE (${columnList(definition.primaryKey)}) IN (SELECT ${columnList(definition.primaryKey, 'changed')} FROM ${CHANGES_TABLE} AS changed)`;
}

/**
 * In key order: the primary key's index then takes the new entries page by page instead of at random (2M rows
 * arriving in hash order: 11.3 s unsorted, 3.8 s sorted, BENCHMARKS.md 2026-11-27).
 */
export function insertChangedRowsSql(definition: TableDefinition): string {
  return `${unorderedInsertSql(definition)}
ORDER BY ${columnList(definition.primaryKey, CHANGED_ALIAS)}`;
}

const CHANGED_ALIAS = 'changed';

function unorderedInsertSql(definition: TableDefinition): string {
  const columns = columnNames(definition);
  return `INSERT INTO ${qualifiedName(definition.table)} (${columnList(columns)})
SELECT ${columnList(columns, CHANGED_ALIAS)}
FROM ${CHANGES_TABLE} AS ${CHANGED_ALIAS}
WHERE ${CHANGED_ALIAS}.${quoteIdent(CHANGE_OPERATION_COLUMN)} <> 'D'`;
}

/** The staging table rebuilt with the batch in the changes table (rebuildWithChanges), when the batch rewrites most of it. */
export function tableRebuildOf(definition: TableDefinition): TableRebuild {
  return {
    qualifiedTable: qualifiedName(definition.table),
    keyColumns: definition.primaryKey,
    changesTable: CHANGES_TABLE,
    insertChangedRows: unorderedInsertSql(definition),
    changesAlias: CHANGED_ALIAS,
  };
}

function columnDefinition(column: ColumnDefinition, notNull: boolean): string {
  return `${quoteIdent(column.name)} ${portableTypeOf(column)}${notNull ? ' NOT NULL' : ''}`;
}

function columnNames(definition: TableDefinition): string[] {
  return definition.columns.map((column) => column.name);
}
