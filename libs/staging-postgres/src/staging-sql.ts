import { CHANGE_OPERATION_COLUMN, type ColumnDefinition, type TableDefinition, type TableRef } from '@svc/contracts';
import { columnList, portableTypeOf, qualifiedName, quoteIdent } from './identifiers';

/** Schema of the stager's own bookkeeping in the staging database. */
export const CONTROL_SCHEMA = 'svc_staging';

/**
 * Serialises DDL of every stager on the database: `CREATE ... IF NOT EXISTS` run concurrently can still
 * fail on the catalog's unique indexes, and two stagers must not both add the same column.
 */
export const DDL_LOCK_SQL = `SELECT pg_advisory_xact_lock(hashtext('${CONTROL_SCHEMA}.ddl'))`;

export const CONTROL_SCHEMA_SQL: readonly string[] = [
  `CREATE SCHEMA IF NOT EXISTS ${CONTROL_SCHEMA}`,
  `CREATE TABLE IF NOT EXISTS ${CONTROL_SCHEMA}.applied_batches (
  batch_id text PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
)`,
  `CREATE TABLE IF NOT EXISTS ${CONTROL_SCHEMA}.table_seeds (
  schema text NOT NULL,
  name text NOT NULL,
  seed_id text NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (schema, name)
)`,
  `CREATE TABLE IF NOT EXISTS ${CONTROL_SCHEMA}.table_fences (
  replication_id text NOT NULL,
  schema text NOT NULL,
  name text NOT NULL,
  epoch bigint NOT NULL,
  PRIMARY KEY (replication_id, schema, name)
)`,
];

/**
 * $1 schema, $2 name. Serialises batches of one table: two replications sharing a staging database (or two
 * stagers) would otherwise race between one batch's DELETE and the other's INSERT of the same key.
 */
export const TABLE_LOCK_SQL = `SELECT pg_advisory_xact_lock(hashtext('${CONTROL_SCHEMA}.table:' || $1 || '.' || $2))`;

/**
 * $1 replication, $2 schema, $3 name, $4 the batch's epoch. Raises the table's fence to the epoch and
 * returns a row; returns none, changing nothing, when the fence is above it (the batch is stale).
 */
export const RAISE_FENCE_SQL = `INSERT INTO ${CONTROL_SCHEMA}.table_fences AS fence (replication_id, schema, name, epoch) VALUES ($1, $2, $3, $4)
ON CONFLICT (replication_id, schema, name) DO UPDATE SET epoch = EXCLUDED.epoch
WHERE fence.epoch <= EXCLUDED.epoch
RETURNING fence.epoch`;

/** $1 replication, $2 schema, $3 name, $4 the batch's epoch: one row with `stale`, or none before the table's first batch. */
export const FENCE_STALE_SQL = `SELECT epoch > $4::bigint AS stale FROM ${CONTROL_SCHEMA}.table_fences WHERE replication_id = $1 AND schema = $2 AND name = $3`;

/** Affects one row when the batch is new; none when it was applied before (a concurrent twin waits for the first to commit). */
export const RECORD_BATCH_SQL = `INSERT INTO ${CONTROL_SCHEMA}.applied_batches (batch_id) VALUES ($1) ON CONFLICT (batch_id) DO NOTHING`;

/** $1 a timestamp: forgets batches applied before it. */
export const FORGET_APPLIED_BATCHES_SQL = `DELETE FROM ${CONTROL_SCHEMA}.applied_batches WHERE applied_at < $1`;

export const START_SEED_SQL = `INSERT INTO ${CONTROL_SCHEMA}.table_seeds (schema, name, seed_id) VALUES ($1, $2, $3)
ON CONFLICT (schema, name) DO UPDATE SET seed_id = EXCLUDED.seed_id, started_at = now()`;

/** FOR SHARE: a later part waits for a concurrent part 0 of a new seed to commit or roll back. */
export const CURRENT_SEED_SQL = `SELECT seed_id FROM ${CONTROL_SCHEMA}.table_seeds WHERE schema = $1 AND name = $2 FOR SHARE`;

/** One row with the table's column names in ordinal order, or no row when the table does not exist. */
export const TABLE_COLUMNS_SQL = `SELECT coalesce(array_agg(a.attname::text ORDER BY a.attnum) FILTER (WHERE a.attnum IS NOT NULL), '{}') AS columns
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p')
GROUP BY c.oid`;

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

/** No NOT NULL on table columns: a delete row carries only its key. */
export function createChangesTableSql(definition: TableDefinition): string {
  if (definition.columns.some((column) => column.name === CHANGE_OPERATION_COLUMN)) {
    throw new Error(`a tracked table cannot have a column named ${CHANGE_OPERATION_COLUMN}: change rows lead with it`);
  }
  const lines = [`  ${quoteIdent(CHANGE_OPERATION_COLUMN)} text NOT NULL CHECK (${quoteIdent(CHANGE_OPERATION_COLUMN)} IN ('I', 'U', 'D'))`, ...definition.columns.map((column) => `  ${columnDefinition(column, false)}`)];
  return `CREATE TEMP TABLE svc_batch_changes (\n${lines.join(',\n')}\n) ON COMMIT DROP`;
}

export function copyChangeRowsSql(definition: TableDefinition): string {
  return `COPY ${CHANGES_TABLE} (${columnList([CHANGE_OPERATION_COLUMN, ...columnNames(definition)])}) FROM STDIN (FORMAT csv)`;
}

/** Gives the planner real row counts for the joins that follow (temp tables are never auto-analysed). */
export const ANALYZE_CHANGES_SQL = `ANALYZE ${CHANGES_TABLE}`;

/** Every changed key loses its current row: deletes, updates (the new row follows) and inserts of a key already present. */
export function deleteChangedKeysSql(definition: TableDefinition): string {
  const keyMatch = definition.primaryKey.map((key) => `target.${quoteIdent(key)} = changed.${quoteIdent(key)}`).join('\n  AND ');
  return `DELETE FROM ${qualifiedName(definition.table)} AS target
USING ${CHANGES_TABLE} AS changed
WHERE ${keyMatch}`;
}

export function insertChangedRowsSql(definition: TableDefinition): string {
  const columns = columnList(columnNames(definition));
  return `INSERT INTO ${qualifiedName(definition.table)} (${columns})
SELECT ${columns}
FROM ${CHANGES_TABLE}
WHERE ${quoteIdent(CHANGE_OPERATION_COLUMN)} <> 'D'`;
}

function columnDefinition(column: ColumnDefinition, notNull: boolean): string {
  return `${quoteIdent(column.name)} ${portableTypeOf(column)}${notNull ? ' NOT NULL' : ''}`;
}

function columnNames(definition: TableDefinition): string[] {
  return definition.columns.map((column) => column.name);
}
