import { createHash } from 'node:crypto';
import { type ColumnDefinition, type TableDefinition, type TableRef } from '@svc/contracts';
import { STAGING_VALUE_TOO_LONG, raiseApplicationLockRefusalSql, stagingPlanOf } from '@svc/sqlserver/common';

/**
 * The T-SQL of a SQL Server staging database, the same protocol as PostgreSQL's (libs/postgres/staging):
 * control tables in schema svc_staging, one application lock per staging table that serialises its batches,
 * epoch fences, a log of applied batches and a seed record per replication and table.
 *
 * Lock order, as in PostgreSQL: (1) the DDL lock, only in ensureTable and the control schema's creation;
 * (2) the lock of the one table a transaction works on; (3) only then that table's fence, log and seed rows
 * and the table itself. Application locks are owned by the transaction and go with it.
 */
export const CONTROL_SCHEMA = 'svc_staging';
const control = (table: string) => `[${CONTROL_SCHEMA}].[${table}]`;

const quoteName = (name: string) => `[${name.replace(/\]/g, ']]')}]`;
const qualifiedName = (table: TableRef) => `${quoteName(table.schema)}.${quoteName(table.name)}`;
const literal = (text: string) => `N'${text.replace(/'/g, "''")}'`;

/**
 * @resource: the lock's name (DDL_LOCK_RESOURCE or tableLockResource); waits as long as it takes. A refusal
 * (a deadlock victim above all) is raised under its own error number, which the pipeline retries (application-lock.ts).
 */
export const APPLICATION_LOCK_SQL = `DECLARE @granted int;
EXEC @granted = sp_getapplock @Resource = @resource, @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = -1;
${raiseApplicationLockRefusalSql('@granted', 'the staging lock')}`;

/**
 * APPLICATION_LOCK_SQL in shared mode: chunks of one seed hold a table's lock together, and an exclusive request waits
 * for all of them (sp_getapplock lock modes: "Shared, Update, IntentShared, IntentExclusive, or Exclusive",
 * https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-getapplock-transact-sql).
 */
export const APPLICATION_LOCK_SHARED_SQL = `DECLARE @granted int;
EXEC @granted = sp_getapplock @Resource = @resource, @LockMode = 'Shared', @LockOwner = 'Transaction', @LockTimeout = -1;
${raiseApplicationLockRefusalSql('@granted', 'the staging lock')}`;

export const DDL_LOCK_RESOURCE = `${CONTROL_SCHEMA}.ddl`;

/** The lock of one staging table: names can be longer than a lock resource (255) may be, so they are hashed. */
export function tableLockResource(table: TableRef): string {
  return `${CONTROL_SCHEMA}.table.${createHash('sha256').update(`${table.schema}\u0000${table.name}`).digest('hex')}`;
}

/**
 * Control tables. Batch ids can be longer than an index key may be, so the log is keyed by their SHA-256.
 * Each CREATE runs only when the table is missing: a check that takes no lock on an existing table.
 */
export const CONTROL_SCHEMA_SQL: readonly string[] = [
  `IF SCHEMA_ID(${literal(CONTROL_SCHEMA)}) IS NULL EXEC(${literal(`CREATE SCHEMA ${quoteName(CONTROL_SCHEMA)}`)})`,
  `IF OBJECT_ID(${literal(control('applied_batches'))}, N'U') IS NULL
CREATE TABLE ${control('applied_batches')} (
  batch_key binary(32) NOT NULL PRIMARY KEY,
  batch_id nvarchar(max) NOT NULL,
  applied_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME()
)`,
  `IF OBJECT_ID(${literal(control('table_seeds'))}, N'U') IS NULL
CREATE TABLE ${control('table_seeds')} (
  replication_id nvarchar(64) NOT NULL,
  [schema] nvarchar(128) NOT NULL,
  name nvarchar(128) NOT NULL,
  seed_id nvarchar(400) NOT NULL,
  started_at datetime2(7) NOT NULL DEFAULT SYSUTCDATETIME(),
  truncated bit NOT NULL DEFAULT 1,
  PRIMARY KEY (replication_id, [schema], name)
)`,
  `IF OBJECT_ID(${literal(control('owned_tables'))}, N'U') IS NULL
CREATE TABLE ${control('owned_tables')} (
  [schema] nvarchar(128) NOT NULL,
  name nvarchar(128) NOT NULL,
  recorded_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME(),
  PRIMARY KEY ([schema], name)
)`,
  `IF OBJECT_ID(${literal(control('table_fences'))}, N'U') IS NULL
CREATE TABLE ${control('table_fences')} (
  replication_id nvarchar(64) NOT NULL,
  [schema] nvarchar(128) NOT NULL,
  name nvarchar(128) NOT NULL,
  epoch bigint NOT NULL,
  raised_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME(),
  PRIMARY KEY (replication_id, [schema], name)
)`,
];

const tableMatch = '[schema] = @schema AND name = @name';
const ownRow = `replication_id = @replication AND ${tableMatch}`;

/**
 * @replication, @schema, @name, @epoch: raises the table's fence to the epoch, or, when the fence is above
 * it, changes nothing. One row: `stale` 1 when the batch belongs to cancelled work.
 */
export const RAISE_FENCE_SQL = `UPDATE ${control('table_fences')} SET epoch = @epoch, raised_at = SYSUTCDATETIME() WHERE ${ownRow} AND epoch <= @epoch;
IF @@ROWCOUNT > 0
  SELECT CAST(0 AS int) AS stale;
ELSE IF EXISTS (SELECT 1 FROM ${control('table_fences')} WHERE ${ownRow})
  SELECT CAST(1 AS int) AS stale;
ELSE
BEGIN
  INSERT INTO ${control('table_fences')} (replication_id, [schema], name, epoch) VALUES (@replication, @schema, @name, @epoch);
  SELECT CAST(0 AS int) AS stale;
END`;

/** @replication, @schema, @name, @epoch: one row with `stale`, or none before the table's first batch. */
/** @replication, @schema, @name: the table's fence, or no row before its first batch. */
export const FENCE_EPOCH_SQL = `SELECT epoch FROM ${control('table_fences')} WHERE ${ownRow}`;

export const FENCE_STALE_SQL = `SELECT CAST(CASE WHEN epoch > @epoch THEN 1 ELSE 0 END AS int) AS stale FROM ${control('table_fences')} WHERE ${ownRow}`;

/** @batch_id: one row, `recorded` 1 when the batch is new (under the table's lock: a twin waits for the first). */
export const RECORD_BATCH_SQL = `IF EXISTS (SELECT 1 FROM ${control('applied_batches')} WHERE batch_key = HASHBYTES('SHA2_256', @batch_id))
  SELECT CAST(0 AS int) AS recorded;
ELSE
BEGIN
  INSERT INTO ${control('applied_batches')} (batch_key, batch_id) VALUES (HASHBYTES('SHA2_256', @batch_id), @batch_id);
  SELECT CAST(1 AS int) AS recorded;
END`;

/** @batch_id: one row when it was applied. */
export const HAS_APPLIED_SQL = `SELECT 1 AS applied FROM ${control('applied_batches')} WHERE batch_key = HASHBYTES('SHA2_256', @batch_id)`;

/** @before: forgets batches applied before it; rows other sessions hold are skipped (READPAST), never waited for. */
export const FORGET_APPLIED_BATCHES_SQL = `DELETE FROM ${control('applied_batches')} WITH (READPAST, ROWLOCK) WHERE applied_at < @before`;

/**
 * A deleted replication's (or a table's that left it) fence and seed record, as two statements each followed by
 * `forgotten` (@@ROWCOUNT): @replication, and @schema, @name for one table or none for every table.
 * Rows other sessions hold are skipped (READPAST), never waited for.
 */
export function forgetRecordsSql(records: 'table_fences' | 'table_seeds', oneTable: boolean): string {
  return `DELETE FROM ${control(records)} WITH (READPAST, ROWLOCK) WHERE ${oneTable ? ownRow : 'replication_id = @replication'};
SELECT @@ROWCOUNT AS forgotten`;
}

/** @replication, @schema, @name: one row with `shared` 1 when another replication applied a batch to the table within the last week. */
export const SHARED_TABLE_SQL = `SELECT CAST(CASE WHEN EXISTS (
  SELECT 1 FROM ${control('table_fences')} WHERE ${tableMatch} AND replication_id <> @replication AND raised_at > DATEADD(day, -7, SYSUTCDATETIME())
) THEN 1 ELSE 0 END AS int) AS shared`;

/** @replication, @schema, @name, @seed_id, @truncated: the replication's seed of the table starts (taken under the table's lock). */
export const START_SEED_SQL = `UPDATE ${control('table_seeds')} SET seed_id = @seed_id, started_at = SYSUTCDATETIME(), truncated = @truncated WHERE ${ownRow};
IF @@ROWCOUNT = 0
  INSERT INTO ${control('table_seeds')} (replication_id, [schema], name, seed_id, truncated) VALUES (@replication, @schema, @name, @seed_id, @truncated)`;

/** @replication, @schema, @name: the replication's current seed of the table and whether another replication started one after it. */
export const CURRENT_SEED_SQL = `SELECT TOP (1) seed.seed_id, CAST(seed.truncated AS int) AS truncated, CAST(CASE WHEN EXISTS (
  SELECT 1 FROM ${control('table_seeds')} AS newer
  WHERE newer.[schema] = seed.[schema] AND newer.name = seed.name AND newer.replication_id NOT IN (@replication, N'') AND newer.started_at > seed.started_at
) THEN 1 ELSE 0 END AS int) AS superseded
FROM ${control('table_seeds')} AS seed
WHERE seed.replication_id IN (@replication, N'') AND seed.[schema] = @schema AND seed.name = @name
ORDER BY seed.replication_id DESC`;

/** @schema, @name: one row when the service created (or adopted) the table (docs/PIPELINE.md, "Tables the service owns"). */
export const OWNED_TABLE_SQL = `SELECT 1 AS owned FROM ${control('owned_tables')} WHERE ${tableMatch}`;

/** @schema, @name: records the table as the service's (it is, or is being, created in this transaction; under the DDL lock). */
export const RECORD_OWNED_TABLE_SQL = `IF NOT EXISTS (SELECT 1 FROM ${control('owned_tables')} WHERE ${tableMatch})
  INSERT INTO ${control('owned_tables')} ([schema], name) VALUES (@schema, @name)`;

/**
 * @schema, @name: one row when a fence or seed record names the table. Versions before owned_tables kept only
 * these; they exist for a table only once a batch was applied to it, which now needs the table to be owned.
 */
export const NAMED_BY_EARLIER_VERSION_SQL = `SELECT 1 AS named WHERE EXISTS (SELECT 1 FROM ${control('table_fences')} WHERE ${tableMatch})
  OR EXISTS (SELECT 1 FROM ${control('table_seeds')} WHERE ${tableMatch})`;

/** @schema, @name: the table's columns in ordinal order (no rows when the table does not exist). */
export const TABLE_COLUMNS_SQL = `SELECT c.name FROM sys.columns c WHERE c.object_id = OBJECT_ID(QUOTENAME(@schema) + N'.' + QUOTENAME(@name), N'U') ORDER BY c.column_id`;

/**
 * @schema, @name: the staging table's columns with their types as sys.columns holds them (read back through
 * columnPlan), nullability and place in the primary key (NULL when none), in ordinal order.
 */
export const TABLE_COLUMN_TYPES_SQL = `SELECT c.name,
  CASE WHEN ty.is_assembly_type = 1 THEN ty.name ELSE TYPE_NAME(c.system_type_id) END AS type_name,
  CAST(ty.is_assembly_type AS int) AS is_clr_type,
  c.max_length, c.precision, c.scale, CAST(c.is_nullable AS int) AS is_nullable, pk.key_ordinal, c.collation_name
FROM sys.columns c
JOIN sys.types ty ON ty.user_type_id = c.user_type_id
LEFT JOIN (
  SELECT ic.object_id, ic.column_id, ic.key_ordinal
  FROM sys.indexes i
  JOIN sys.index_columns ic ON ic.object_id = i.object_id AND ic.index_id = i.index_id
  WHERE i.is_primary_key = 1
) pk ON pk.object_id = c.object_id AND pk.column_id = c.column_id
WHERE c.object_id = OBJECT_ID(QUOTENAME(@schema) + N'.' + QUOTENAME(@name), N'U')
ORDER BY c.column_id`;

/** @schema, @name: the name of the table's PRIMARY KEY constraint (the system names the one CREATE TABLE declares). */
export const PRIMARY_KEY_NAME_SQL = `SELECT kc.name FROM sys.key_constraints kc
WHERE kc.parent_object_id = OBJECT_ID(QUOTENAME(@schema) + N'.' + QUOTENAME(@name), N'U') AND kc.type = 'PK'`;

/**
 * Widens one column. NULL or NOT NULL is always spelled out: left out, the column's nullability would follow the
 * session's ANSI_NULL_DFLT_ON (which tedious sets ON), not what the column had. So is a character column's
 * collation (its current one, from sys.columns): left out, "the column is assigned the default collation of the
 * database" (ALTER TABLE, COLLATE), and a case-sensitive key would start to collide.
 */
export function alterColumnTypeSql(table: TableRef, column: string, stagingType: string, nullable: boolean, collation: string | null): string {
  if (collation !== null && !COLLATION_NAME.test(collation)) throw new Error(`column ${column}: collation '${collation}' is not a collation name`);
  const collate = collation === null ? '' : ` COLLATE ${collation}`;
  return `ALTER TABLE ${qualifiedName(table)} ALTER COLUMN ${quoteName(column)} ${stagingType}${collate} ${nullable ? 'NULL' : 'NOT NULL'}`;
}

export function dropConstraintSql(table: TableRef, constraint: string): string {
  return `ALTER TABLE ${qualifiedName(table)} DROP CONSTRAINT ${quoteName(constraint)}`;
}

export function addPrimaryKeySql(table: TableRef, constraint: string, keyColumns: readonly string[]): string {
  return `ALTER TABLE ${qualifiedName(table)} ADD CONSTRAINT ${quoteName(constraint)} PRIMARY KEY (${keyColumns.map(quoteName).join(', ')})`;
}

const CHARACTER_TYPE = /^(n?char|n?varchar|n?text)(\(|$)/i;
const COLLATION_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/**
 * The collation a character column of staging is created and compared with: the source column's (carried by
 * the definition, see docs/ENGINES.md "Collations"); null for a column of another type. Absent from a
 * definition (an earlier version's), the staging database's default. The name is spliced into T-SQL: it must
 * be a bare name.
 */
function collationOf(column: ColumnDefinition): string | null {
  if (!CHARACTER_TYPE.test(stagingPlanOf(column.name, column.sourceType).stagingType)) return null;
  if (column.collation === undefined) return 'DATABASE_DEFAULT';
  if (!COLLATION_NAME.test(column.collation)) throw new Error(`column ${column.name}: collation '${column.collation}' is not a collation name`);
  return column.collation;
}

function columnDefinition(column: ColumnDefinition, notNull: boolean): string {
  const collation = collationOf(column);
  const collate = collation === null || column.collation === undefined ? '' : ` COLLATE ${collation}`;
  return `${quoteName(column.name)} ${stagingPlanOf(column.name, column.sourceType).stagingType}${collate}${notNull ? ' NOT NULL' : ' NULL'}`;
}

export function createSchemaSql(table: TableRef): string {
  return `IF SCHEMA_ID(${literal(table.schema)}) IS NULL EXEC(${literal(`CREATE SCHEMA ${quoteName(table.schema)}`)})`;
}

export function createTableSql(definition: TableDefinition): string {
  const lines = definition.columns.map((column) => `  ${columnDefinition(column, !column.nullable)}`);
  if (definition.primaryKey.length > 0) lines.push(`  PRIMARY KEY (${definition.primaryKey.map(quoteName).join(', ')})`);
  return `CREATE TABLE ${qualifiedName(definition.table)} (\n${lines.join(',\n')}\n)`;
}

/** Added columns are nullable: rows already in the table have no value for them. */
export function addColumnsSql(table: TableRef, columns: readonly ColumnDefinition[]): string {
  return `ALTER TABLE ${qualifiedName(table)} ADD\n${columns.map((column) => `  ${columnDefinition(column, false)}`).join(',\n')}`;
}

/** TRUNCATE is transactional in SQL Server: a seed part 0 that rolls back leaves the rows. */
export function truncateSql(table: TableRef): string {
  return `TRUNCATE TABLE ${qualifiedName(table)}`;
}

/**
 * The batch's rows land here as text (bulk-loaded as they stream in); created for every batch and dropped once its rows
 * are in (DROP_BATCH_ROWS_SQL), or with the session.
 */
export const BATCH_ROWS_TABLE = '#svc_batch_rows';
/** The operation column of change rows (I, U or D); seed rows have none (they are inserts). */
export const BATCH_OPERATION_COLUMN = 'op';

/**
 * Column names of the batch's rows: the operation (change rows only), then `c0`, `c1`, … by the definition's
 * column order. Positional names keep source column names out of the bulk load's own statement, which the
 * driver writes without escaping them.
 */
export function batchRowsColumns(definition: TableDefinition, withOperation: boolean): string[] {
  return [...(withOperation ? [BATCH_OPERATION_COLUMN] : []), ...definition.columns.map((_column, index) => positional(index))];
}

const positional = (index: number) => `c${index}`;

/**
 * Every column text (nvarchar(max)), as batchRowsColumns names them. A temporary table lives in tempdb and
 * takes its collation (the server's), not the staging database's: the columns say COLLATE DATABASE_DEFAULT,
 * and key comparisons name the key column's collation (deleteChangedKeysSql).
 */
export function createBatchRowsSql(definition: TableDefinition, withOperation: boolean): string {
  const lines = batchRowsColumns(definition, withOperation).map((column) =>
    column === BATCH_OPERATION_COLUMN && withOperation
      ? `  ${quoteName(column)} nchar(1) COLLATE DATABASE_DEFAULT NOT NULL`
      : `  ${quoteName(column)} nvarchar(max) COLLATE DATABASE_DEFAULT NULL`,
  );
  return `IF OBJECT_ID(N'tempdb..${BATCH_ROWS_TABLE}') IS NOT NULL DROP TABLE ${BATCH_ROWS_TABLE};
CREATE TABLE ${BATCH_ROWS_TABLE} (\n${lines.join(',\n')}\n)`;
}

/**
 * Sent after the last statement that reads the batch rows (the INSERT), in the same request. A #table lives until its
 * session ends, past the commit ("CREATE TABLE (Transact-SQL)", Temporary tables), and a group of change batches
 * (applyChangeGroup) makes one for each member in one transaction and session: dropped here, the next CREATE's guard
 * finds none, so no request drops and creates it ("DROP TABLE and CREATE TABLE should not be executed on the same
 * table in the same batch. Otherwise an unexpected error may occur", DROP TABLE (Transact-SQL), Remarks).
 */
export const DROP_BATCH_ROWS_SQL = `DROP TABLE ${BATCH_ROWS_TABLE}`;

/** The typed value of a column, converted from the batch's text (column-types: stagingPlanOf). */
function typedColumn(definition: TableDefinition, index: number, alias: string): string {
  const column = definition.columns[index];
  if (column === undefined) throw new RangeError(`column ${index} of ${definition.table.schema}.${definition.table.name} does not exist`);
  return stagingPlanOf(column.name, column.sourceType).fromText(`${alias}.${quoteName(positional(index))}`);
}

function columnIndex(definition: TableDefinition, name: string): number {
  const index = definition.columns.findIndex((column) => column.name === name);
  if (index < 0) throw new Error(`primary key column ${name} is not a column of ${definition.table.schema}.${definition.table.name}`);
  return index;
}

/**
 * Every key the batch changes goes from the table: deletes, and the old rows of inserts and updates. A character
 * key is compared under the column's collation, named explicitly: the batch rows' column has another one, and two
 * column references of different collations cannot be compared (Msg 468; "Collation precedence").
 */
export function deleteChangedKeysSql(definition: TableDefinition): string {
  const join = definition.primaryKey
    .map((key) => {
      const index = columnIndex(definition, key);
      const column = definition.columns[index];
      const collation = column === undefined ? null : collationOf(column);
      return `t.${quoteName(key)} = ${typedColumn(definition, index, 'r')}${collation === null ? '' : ` COLLATE ${collation}`}`;
    })
    .join(' AND ');
  return `DELETE t FROM ${qualifiedName(definition.table)} AS t
WHERE EXISTS (SELECT 1 FROM ${BATCH_ROWS_TABLE} AS r WHERE ${join})`;
}

/**
 * Refuses the batch when a value is longer than its staging column keeps whole (a sql_variant holds at most an
 * nvarchar(4000)), naming table and column but not the value; null when no column has such a limit. `LEN(x + N'.') - 1`
 * counts trailing blanks, which LEN alone ignores.
 */
export function valueLengthGuardSql(definition: TableDefinition): string | null {
  const guards = definition.columns.flatMap((column, index) => {
    const limit = stagingPlanOf(column.name, column.sourceType).maxTextLength;
    if (limit === undefined) return [];
    const message = `${qualifiedName(definition.table)}: column ${column.name} holds a ${column.sourceType} value longer than the ${limit} characters a staging ${stagingPlanOf(column.name, column.sourceType).stagingType} column keeps`;
    return [`IF EXISTS (SELECT 1 FROM ${BATCH_ROWS_TABLE} AS r WHERE LEN(r.${quoteName(positional(index))} + N'.') > ${limit + 1}) THROW ${STAGING_VALUE_TOO_LONG}, ${literal(message)}, 1;`];
  });
  return guards.length === 0 ? null : guards.join('\n');
}

/** The rows of inserts and updates (all rows of a seed batch), converted to the table's types. */
export function insertRowsSql(definition: TableDefinition, withOperation: boolean): string {
  const columns = definition.columns.map((column) => quoteName(column.name)).join(', ');
  const values = definition.columns.map((_column, index) => typedColumn(definition, index, 'r')).join(',\n  ');
  return `INSERT INTO ${qualifiedName(definition.table)} (${columns})
SELECT ${values}
FROM ${BATCH_ROWS_TABLE} AS r${withOperation ? `\nWHERE r.${quoteName(BATCH_OPERATION_COLUMN)} <> N'D'` : ''}`;
}
