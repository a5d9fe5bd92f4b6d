import { CHANGE_OPERATION_COLUMN, type ColumnDefinition, type TableDefinition, type TableRef } from '@svc/contracts';
import { checkedKeyDeclarations, columnDeclaration, logicalType, typeComment, type ColumnRole } from './staging-types';
import { qualifiedName, quoteName } from '@svc/mysql/common';

/**
 * The SQL of a MySQL or MariaDB staging server, the protocol of PostgreSQL's (libs/postgres/staging) in MySQL's terms.
 *
 * Layout: the staging table of `schema.name` is table `name` of the database `schema` (a MySQL database is its tables'
 * schema, as the MySQL source reads it); the control tables are in the database `svc_staging`.
 *
 * MySQL's DDL commits the transaction it runs in ("Statements That Cause an Implicit Commit", MySQL 8.0 Reference
 * Manual 15.3.3: CREATE/ALTER/DROP DATABASE and TABLE, TRUNCATE TABLE; not CREATE or DROP TEMPORARY TABLE). So:
 * - a batch's transaction runs no DDL: a seed empties its table with DELETE (TRUNCATE would commit the fence and the
 *   batch log before the rows), and the batch's rows go through a TEMPORARY table;
 * - the DDL lock is a named lock (GET_LOCK), which belongs to the session, not the transaction ("Locking Functions":
 *   "Locks obtained with GET_LOCK() are not released when transactions commit or roll back"), released by the
 *   connector when the transaction ends;
 * - the table locks are row locks on svc_staging.table_locks, released at COMMIT or ROLLBACK like PostgreSQL's
 *   transaction-level advisory locks. ensureTable's ALTER TABLE commits (and so drops that lock) before it runs; the
 *   metadata lock ALTER TABLE takes then waits for every transaction that has used the table ("Metadata Locking").
 *
 * Lock order (docs/PIPELINE.md, "Lock order"), as PostgreSQL's: the DDL lock only in ensureTable and the control
 * tables' creation, never in a batch; then the table lock of the one table the transaction works on; only then that
 * table's fence, seed and log rows and the table itself. Housekeeping skips rows others hold (SKIP LOCKED).
 */
export const CONTROL_DATABASE = 'svc_staging';

const control = (table: string): string => `${quoteName(CONTROL_DATABASE)}.${quoteName(table)}`;
/** A string literal (comments only; values are always parameters). The session's sql_mode has no NO_BACKSLASH_ESCAPES. */
const literal = (text: string): string => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
const columnList = (names: readonly string[], alias?: string): string => names.map((name) => (alias === undefined ? quoteName(name) : `${alias}.${quoteName(name)}`)).join(', ');

/** The named lock of DDL: GET_LOCK names are server-wide, up to 64 characters. */
export const DDL_LOCK_NAME = `${CONTROL_DATABASE}.ddl`;
/** Seconds GET_LOCK waits; MariaDB refuses a negative (unbounded) timeout (MDEV-4017). */
export const DDL_LOCK_TIMEOUT_SECONDS = 3600;
/** One row, `granted`: 1 when taken, 0 when the wait timed out, NULL on an error. */
export const DDL_LOCK_SQL = `SELECT GET_LOCK(?, ${DDL_LOCK_TIMEOUT_SECONDS}) AS granted`;
export const DDL_UNLOCK_SQL = 'DO RELEASE_LOCK(?)';

/** Names of tables and databases are compared byte for byte: on Linux they are as case-sensitive as files. */
const NAME = 'VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL';
const TABLE_OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin';

/** The control database, created only when missing (CREATE DATABASE takes an exclusive lock on the name even when it exists). */
export const CONTROL_DATABASE_SQL = `CREATE DATABASE IF NOT EXISTS ${quoteName(CONTROL_DATABASE)} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`;

/** $1 a database: the names of its tables. */
export const DATABASE_TABLES_SQL = 'SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?';
/** $1 a database: one row when it exists (the name compared again by the caller: information_schema compares without case). */
export const DATABASE_EXISTS_SQL = 'SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?';

/**
 * The control tables, each created only when missing. The batch log is keyed by the SHA-256 of the batch id: an
 * index holds at most 3072 bytes, and an id names a schema and a table.
 */
export const CONTROL_TABLES_SQL: Readonly<Record<string, string>> = {
  applied_batches: `CREATE TABLE IF NOT EXISTS ${control('applied_batches')} (
  batch_key BINARY(32) NOT NULL PRIMARY KEY,
  batch_id LONGTEXT NOT NULL,
  applied_at DATETIME(6) NOT NULL,
  KEY applied_at (applied_at)
) ${TABLE_OPTIONS}`,
  table_seeds: `CREATE TABLE IF NOT EXISTS ${control('table_seeds')} (
  replication_id ${NAME},
  schema_name ${NAME},
  table_name ${NAME},
  seed_id LONGTEXT NOT NULL,
  started_at DATETIME(6) NOT NULL,
  truncated BOOLEAN NOT NULL,
  PRIMARY KEY (replication_id, schema_name, table_name),
  KEY seeds_of_table (schema_name, table_name)
) ${TABLE_OPTIONS}`,
  table_fences: `CREATE TABLE IF NOT EXISTS ${control('table_fences')} (
  replication_id ${NAME},
  schema_name ${NAME},
  table_name ${NAME},
  epoch BIGINT NOT NULL,
  raised_at DATETIME(6) NOT NULL,
  PRIMARY KEY (replication_id, schema_name, table_name),
  KEY fences_of_table (schema_name, table_name)
) ${TABLE_OPTIONS}`,
  // The tables the service created (docs/PIPELINE.md, "Tables the service owns"): no other table is written.
  owned_tables: `CREATE TABLE IF NOT EXISTS ${control('owned_tables')} (
  schema_name ${NAME},
  table_name ${NAME},
  recorded_at DATETIME(6) NOT NULL,
  PRIMARY KEY (schema_name, table_name)
) ${TABLE_OPTIONS}`,
  // One row a staging table, whose row lock is the table's lock (lockTable, lockTableShared).
  table_locks: `CREATE TABLE IF NOT EXISTS ${control('table_locks')} (
  schema_name ${NAME},
  table_name ${NAME},
  PRIMARY KEY (schema_name, table_name)
) ${TABLE_OPTIONS}`,
};

/**
 * $1 schema, $2 name: the table's lock, exclusive. An INSERT … ON DUPLICATE KEY UPDATE takes an exclusive lock on the
 * row it finds ("Locks Set by Different SQL Statements in InnoDB": "an exclusive lock rather than a shared lock is
 * placed on the row to be updated when a duplicate-key error occurs"), and creates the row the first time. Asking
 * for the exclusive lock at once, not a shared one first, is what keeps two such lockers from deadlocking.
 */
export const TABLE_LOCK_SQL = `INSERT INTO ${control('table_locks')} (schema_name, table_name) VALUES (?, ?)
ON DUPLICATE KEY UPDATE table_name = VALUES(table_name)`;

/**
 * $1 schema, $2 name: makes sure the lock's row exists (a duplicate-key check takes a shared lock on the row it finds);
 * then TABLE_LOCK_SHARED_SQL. A row created here is locked exclusively until the transaction ends: only a table's very
 * first locker makes one, and a chunk that finds no row finds no seed either and starts it under the exclusive lock.
 */
export const TABLE_LOCK_ROW_SQL = `INSERT IGNORE INTO ${control('table_locks')} (schema_name, table_name) VALUES (?, ?)`;

/** $1 schema, $2 name: the table's lock in shared mode (chunks of one seed hold it together; TABLE_LOCK_SQL waits for all of them). */
export const TABLE_LOCK_SHARED_SQL = `SELECT 1 FROM ${control('table_locks')} WHERE schema_name = ? AND table_name = ? LOCK IN SHARE MODE`;

/** $1 replication, $2 schema, $3 name: the table's fence, or no row before its first batch. */
export const FENCE_EPOCH_SQL = `SELECT epoch FROM ${control('table_fences')} WHERE replication_id = ? AND schema_name = ? AND table_name = ?`;

/**
 * $1 replication, $2 schema, $3 name, $4 the batch's epoch. Raises the table's fence to the epoch; a fence above it
 * stays (FENCE_EPOCH_SQL then tells). The assignments run left to right ("INSERT … ON DUPLICATE KEY UPDATE"), so
 * raised_at reads the epoch before it is raised.
 */
export const RAISE_FENCE_SQL = `INSERT INTO ${control('table_fences')} (replication_id, schema_name, table_name, epoch, raised_at) VALUES (?, ?, ?, ?, UTC_TIMESTAMP(6))
ON DUPLICATE KEY UPDATE raised_at = IF(epoch <= VALUES(epoch), VALUES(raised_at), raised_at), epoch = GREATEST(epoch, VALUES(epoch))`;

/** $1 the batch's epoch, $2 replication, $3 schema, $4 name: one row with `stale` 1 or 0, or none before the table's first batch. */
export const FENCE_STALE_SQL = `SELECT epoch > ? AS stale FROM ${control('table_fences')} WHERE replication_id = ? AND schema_name = ? AND table_name = ?`;

/** $1 the batch id's SHA-256, $2 the batch id: one row affected when the batch is new, none when it was applied before (a concurrent twin waits for the first). */
export const RECORD_BATCH_SQL = `INSERT IGNORE INTO ${control('applied_batches')} (batch_key, batch_id, applied_at) VALUES (?, ?, UTC_TIMESTAMP(6))`;

/** $1 the batch id's SHA-256: one row when the batch was applied. */
export const HAS_APPLIED_SQL = `SELECT 1 AS applied FROM ${control('applied_batches')} WHERE batch_key = ?`;

/**
 * $1 a time in UTC: the keys of batches applied before it, locked; rows another session holds are skipped, never
 * waited for (SKIP LOCKED: MySQL 8.0.1, MariaDB 10.6), so housekeeping is never part of a deadlock.
 */
export const OLD_BATCHES_SQL = `SELECT batch_key FROM ${control('applied_batches')} WHERE applied_at < ? FOR UPDATE SKIP LOCKED`;

/** Deletes the batches whose keys are given (OLD_BATCHES_SQL's, locked by this transaction). */
export function forgetBatchesSql(count: number): string {
  return `DELETE FROM ${control('applied_batches')} WHERE batch_key IN (${placeholders(count)})`;
}

export type ReplicationRecords = 'table_fences' | 'table_seeds';

/**
 * $1 replication, and $2 schema and $3 name when `oneTable`: the keys of the replication's fence or seed records (a
 * deleted replication's, a table's that left it), locked; rows another session holds are skipped (they age out).
 */
export function replicationRecordsSql(records: ReplicationRecords, oneTable: boolean): string {
  return `SELECT replication_id, schema_name, table_name FROM ${control(records)}
WHERE replication_id = ?${oneTable ? ' AND schema_name = ? AND table_name = ?' : ''}
FOR UPDATE SKIP LOCKED`;
}

/** Deletes one record by its key ($1 replication, $2 schema, $3 name). */
export function forgetRecordSql(records: ReplicationRecords): string {
  return `DELETE FROM ${control(records)} WHERE replication_id = ? AND schema_name = ? AND table_name = ?`;
}

/**
 * $1 schema, $2 name, $3 replication: `shared` 1 when another replication applied a batch to the table within the
 * last week (a deleted replication's fence stops counting then).
 */
export const SHARED_TABLE_SQL = `SELECT EXISTS (
  SELECT 1 FROM ${control('table_fences')}
  WHERE schema_name = ? AND table_name = ? AND replication_id <> ? AND raised_at > UTC_TIMESTAMP(6) - INTERVAL 7 DAY
) AS shared`;

/**
 * $1 replication, $2 schema, $3 name, $4 seed id, $5 whether its part 0 emptied the table. The start is the
 * statement's time, after the table's lock was taken: it orders seeds as they were applied.
 */
export const START_SEED_SQL = `INSERT INTO ${control('table_seeds')} (replication_id, schema_name, table_name, seed_id, truncated, started_at) VALUES (?, ?, ?, ?, ?, UTC_TIMESTAMP(6))
ON DUPLICATE KEY UPDATE seed_id = VALUES(seed_id), truncated = VALUES(truncated), started_at = VALUES(started_at)`;

/**
 * $1 replication, $2 schema, $3 name: the replication's current seed of the table, and `superseded` 1 when another
 * replication started a seed of the table after it. The row is read locked in shared mode, as PostgreSQL's FOR SHARE.
 */
export const CURRENT_SEED_SQL = `SELECT seed.seed_id, seed.truncated, EXISTS (
  SELECT 1 FROM ${control('table_seeds')} AS newer
  WHERE newer.schema_name = seed.schema_name AND newer.table_name = seed.table_name
    AND newer.replication_id <> seed.replication_id AND newer.started_at > seed.started_at
) AS superseded
FROM ${control('table_seeds')} AS seed
WHERE seed.replication_id = ? AND seed.schema_name = ? AND seed.table_name = ?
LOCK IN SHARE MODE`;

/** $1 schema, $2 name: one row when the service created the table. */
export const OWNED_TABLE_SQL = `SELECT 1 AS owned FROM ${control('owned_tables')} WHERE schema_name = ? AND table_name = ?`;

/** $1 schema, $2 name: records the table as the service's (it is, or is being, created in this transaction). */
export const RECORD_OWNED_TABLE_SQL = `INSERT IGNORE INTO ${control('owned_tables')} (schema_name, table_name, recorded_at) VALUES (?, ?, UTC_TIMESTAMP(6))`;

/**
 * $1 schema, $2 name: the table's columns in ordinal order, with their types and comments. information_schema
 * compares names without case (utf8mb3_general_ci in MariaDB): the caller keeps the rows of exactly the table asked for.
 */
export const TABLE_COLUMNS_SQL = `SELECT TABLE_SCHEMA AS table_schema, TABLE_NAME AS table_name, COLUMN_NAME AS name, COLUMN_TYPE AS column_type,
  COLUMN_COMMENT AS comment, IS_NULLABLE AS is_nullable, COLUMN_KEY AS column_key
FROM information_schema.COLUMNS
WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?
ORDER BY ORDINAL_POSITION`;

/** A column's definition clause: name, declaration for its role, nullability and the comment keeping its logical type. */
function columnClause(name: string, logical: string, role: ColumnRole, notNull: boolean, collation: string): string {
  return `${quoteName(name)} ${columnDeclaration(logical, role, collation).sql} ${notNull ? 'NOT NULL' : 'NULL'} COMMENT ${literal(typeComment(logical))}`;
}

const roleOf = (definition: TableDefinition, column: ColumnDefinition): ColumnRole => (definition.primaryKey.includes(column.name) ? 'key' : 'value');

export function createDatabaseSql(schema: string, collation: string): string {
  return `CREATE DATABASE IF NOT EXISTS ${quoteName(schema)} CHARACTER SET utf8mb4 COLLATE ${collation}`;
}

/** The staging table; StagingKeyError (before anything runs) for a key InnoDB cannot index whole. */
export function createTableSql(definition: TableDefinition, collation: string): string {
  checkedKeyDeclarations(definition.table, definition.columns, definition.primaryKey, collation);
  const lines = definition.columns.map((column) => `  ${columnClause(column.name, logicalType(column.portableType), roleOf(definition, column), !column.nullable, collation)}`);
  if (definition.primaryKey.length > 0) lines.push(`  PRIMARY KEY (${columnList(definition.primaryKey)})`);
  return `CREATE TABLE ${qualifiedName(definition.table)} (\n${lines.join(',\n')}\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=${collation} ROW_FORMAT=DYNAMIC`;
}

/** Added columns are nullable (rows already in the table have no value for them) and never part of the key. */
export function addColumnsSql(table: TableRef, columns: readonly ColumnDefinition[], collation: string): string {
  const clauses = columns.map((column) => `  ADD COLUMN ${columnClause(column.name, logicalType(column.portableType), 'value', false, collation)}`);
  return `ALTER TABLE ${qualifiedName(table)}\n${clauses.join(',\n')}`;
}

/** A column to widen: its new logical type, whether it is in the primary key and whether it takes NULL. */
export interface ColumnWidening {
  name: string;
  to: string;
  key: boolean;
  nullable: boolean;
}

/**
 * Widens columns to the source's new types. MODIFY COLUMN restates the whole column ("ALTER TABLE Statement": "MODIFY
 * … attributes not specified are dropped"): its declaration, nullability and the comment with its logical type. A
 * primary key column may be modified in place.
 */
export function widenColumnsSql(table: TableRef, columns: readonly ColumnWidening[], collation: string): string {
  const clauses = columns.map((column) => `  MODIFY COLUMN ${columnClause(column.name, column.to, column.key ? 'key' : 'value', !column.nullable, collation)}`);
  return `ALTER TABLE ${qualifiedName(table)}\n${clauses.join(',\n')}`;
}

/** Empties the table in the batch's transaction: TRUNCATE TABLE would commit it (see the top of this file). */
export function emptyTableSql(table: TableRef): string {
  return `DELETE FROM ${qualifiedName(table)}`;
}

/** The batch's rows land here first; a TEMPORARY table is the session's own and its creation commits nothing. */
export const BATCH_TABLE = control('svc_batch_changes');

/** Drops the session's batch table; a group of change batches loads each member's rows into one of its own in turn. */
export const DROP_BATCH_TABLE_SQL = `DROP TEMPORARY TABLE IF EXISTS ${BATCH_TABLE}`;

/** No NOT NULL on the table's columns: a delete row carries only its key. Seed rows merged by key take the operation's default, an insert. */
export function createBatchTableSql(definition: TableDefinition, collation: string): string {
  if (definition.columns.some((column) => column.name === CHANGE_OPERATION_COLUMN)) {
    throw new Error(`a tracked table cannot have a column named ${CHANGE_OPERATION_COLUMN}: change rows lead with it`);
  }
  const keyDeclarations = checkedKeyDeclarations(definition.table, definition.columns, definition.primaryKey, collation);
  const lines = [
    `  ${quoteName(CHANGE_OPERATION_COLUMN)} CHAR(1) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT 'I'`,
    ...definition.columns.map((column) => {
      const declaration = keyDeclarations.get(column.name) ?? columnDeclaration(logicalType(column.portableType), 'value', collation);
      return `  ${quoteName(column.name)} ${declaration.sql} NULL`;
    }),
  ];
  return `CREATE TEMPORARY TABLE ${BATCH_TABLE} (\n${lines.join(',\n')}\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`;
}

/** The batch table's columns a batch's rows fill: the operation first for change rows. */
export function batchTableColumns(definition: TableDefinition, withOperation: boolean): string[] {
  const columns = definition.columns.map((column) => column.name);
  return withOperation ? [CHANGE_OPERATION_COLUMN, ...columns] : columns;
}

/** `?, ?, ?` */
function placeholders(count: number): string {
  return Array.from({ length: count }, () => '?').join(', ');
}

/** A multi-row INSERT of `rowCount` rows of `columns` into `target` (a quoted name), every value a parameter. */
export function insertValuesSql(target: string, columns: readonly string[], rowCount: number): string {
  const row = `(${placeholders(columns.length)})`;
  return `INSERT INTO ${target} (${columnList(columns)}) VALUES ${Array.from({ length: rowCount }, () => row).join(', ')}`;
}

const CHANGED_ALIAS = 'changed';

/**
 * Every key the batch names loses its current row: deletes, updates (the new row follows) and inserts of a key already
 * present. The batch table is named once: MySQL cannot open a TEMPORARY table twice in one statement ("TEMPORARY
 * Table Problems").
 */
export function deleteChangedKeysSql(definition: TableDefinition): string {
  // Named in full, not by an alias: MariaDB resolves an alias in a multi-table DELETE's list against the session's
  // default database, and staging sessions have none ("No database selected").
  const target = qualifiedName(definition.table);
  const matches = definition.primaryKey.map((name) => `${target}.${quoteName(name)} = ${CHANGED_ALIAS}.${quoteName(name)}`).join(' AND ');
  return `DELETE ${target} FROM ${target}
INNER JOIN ${BATCH_TABLE} AS ${CHANGED_ALIAS} ON ${matches}`;
}

/** The rows of inserts and updates, in key order: the primary key's index takes them page by page. */
export function insertChangedRowsSql(definition: TableDefinition): string {
  const columns = definition.columns.map((column) => column.name);
  return `INSERT INTO ${qualifiedName(definition.table)} (${columnList(columns)})
SELECT ${columnList(columns, CHANGED_ALIAS)}
FROM ${BATCH_TABLE} AS ${CHANGED_ALIAS}
WHERE ${CHANGED_ALIAS}.${quoteName(CHANGE_OPERATION_COLUMN)} <> 'D'${definition.primaryKey.length > 0 ? `\nORDER BY ${columnList(definition.primaryKey, CHANGED_ALIAS)}` : ''}`;
}
