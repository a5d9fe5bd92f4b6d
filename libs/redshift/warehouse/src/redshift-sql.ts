import { CHANGE_OPERATION_COLUMN } from '@svc/contracts';
import { SystemColumns, WarehouseControlTables } from '@svc/engines';
import { qualifiedName, quoteIdent } from './redshift-identifiers';
import type { LayoutColumn, RedshiftLayout } from './redshift-layout';

/**
 * Every statement the Redshift warehouse sends, in the SQL Redshift accepts: no ON CONFLICT, no IS DISTINCT
 * FROM, no advisory locks, no TRUNCATE inside a load (it commits), no aliases on the target of DELETE or
 * UPDATE, one column per ADD COLUMN. The merge, fence and batch-log statements also run on PostgreSQL (the
 * suite's Redshift-dialect pair); only the DDL and the transaction's time have a PostgreSQL spelling (`dialect`), for
 * VARBYTE, IDENTITY and SYSDATE. A load's rows are stamped with the time it takes after its lock (redshift-load-stamp.ts).
 *
 * Locks: a load locks its table's own control table only (redshift-table-control.ts); changes to the schema's tables
 * (ensureTable) lock the schema's fence table (lockSchemaDdlSql), which no load takes.
 */
export type SqlDialect = 'redshift' | 'postgres';

export const ControlTables = WarehouseControlTables;

/** The session's temporary table the rows of a change batch are copied into. */
export const LOAD_TABLE = 'svc_sys_load_rows';

/**
 * The transaction's time: Redshift's SYSDATE "returns the start date and time for the current transaction, not for the
 * start of the current statement", with microseconds, "in the current session time zone (UTC by default)"
 * (https://docs.aws.amazon.com/redshift/latest/dg/r_SYSDATE.html); every session is set to UTC (redshift-client.ts).
 * PostgreSQL's twin is LOCALTIMESTAMP, the transaction's start in the session's time zone. A load stamps its rows
 * with the time it takes after its table's lock instead (redshift-load-stamp.ts).
 */
export function loadTime(dialect: SqlDialect): string {
  return dialect === 'postgres' ? 'LOCALTIMESTAMP' : 'SYSDATE';
}
const OP = quoteIdent(CHANGE_OPERATION_COLUMN);
const LOAD = quoteIdent(LOAD_TABLE);
const VALID_FROM = quoteIdent(SystemColumns.validFrom);
const VALID_TO = quoteIdent(SystemColumns.validTo);
const IS_CURRENT = quoteIdent(SystemColumns.isCurrent);
const IS_DELETED = quoteIdent(SystemColumns.isDeleted);
const UPDATE_TIMESTAMP = quoteIdent(SystemColumns.updateTimestamp);

/** Aliases of the load table, the shadow and the target: the service's prefix, so no table name can clash with them. */
const L = 'svc_sys_l';
const S = 'svc_sys_s';
const T = 'svc_sys_t';
/** Another current row of the same key (Type2 changes). */
const O = 'svc_sys_o';

const control = (schema: string, table: string) => qualifiedName(schema, table);

export function createSchemaSql(schema: string): string {
  return `CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`;
}

/**
 * Batch ids loaded (idempotency), the seed each table's shadow collects, each table's epoch fence, and the tables
 * the service created (targets and shadows): no other table is written.
 */
export function createControlTablesSql(schema: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${control(schema, ControlTables.loadedBatches)} (
  batch_id VARCHAR(4096) NOT NULL,
  loaded_at TIMESTAMP NOT NULL,
  PRIMARY KEY (batch_id)
)`,
    `CREATE TABLE IF NOT EXISTS ${control(schema, ControlTables.tableSeeds)} (
  table_name VARCHAR(512) NOT NULL,
  seed_id VARCHAR(1024) NOT NULL,
  PRIMARY KEY (table_name)
)`,
    `CREATE TABLE IF NOT EXISTS ${control(schema, ControlTables.tableFences)} (
  replication_id VARCHAR(64) NOT NULL,
  table_name VARCHAR(512) NOT NULL,
  epoch BIGINT NOT NULL,
  PRIMARY KEY (replication_id, table_name)
)`,
    `CREATE TABLE IF NOT EXISTS ${control(schema, ControlTables.ownedTables)} (
  table_name VARCHAR(512) NOT NULL,
  recorded_at TIMESTAMP NOT NULL,
  PRIMARY KEY (table_name)
)`,
  ];
}

/**
 * The first statement of every change to the schema's tables (making a table, adding its columns, recording it as the
 * service's): they read and write the schema's shared control tables. No load takes it.
 */
export function lockSchemaDdlSql(schema: string): string {
  return `LOCK ${control(schema, ControlTables.tableFences)}`;
}

/**
 * $1 batch id: one row when it was loaded into a table of the schema (the schema's batch log, appended to by every load).
 * Compared case-sensitively (equalValues): the ids of two tables' batches may differ only in the case of the tables' names.
 */
export function batchLoadedSql(schema: string): string {
  return `SELECT 1 AS loaded FROM ${control(schema, ControlTables.loadedBatches)} WHERE ${caseSensitive('batch_id')} = $1`;
}

/** $1 batch id. */
export function recordBatchSql(schema: string, dialect: SqlDialect = 'redshift'): string {
  return `INSERT INTO ${control(schema, ControlTables.loadedBatches)} (batch_id, loaded_at) VALUES ($1, ${loadTime(dialect)})`;
}

/** $1 loaded before: forgets batches that can no longer arrive again. */
export function forgetBatchesSql(schema: string): string {
  return `DELETE FROM ${control(schema, ControlTables.loadedBatches)} WHERE loaded_at < $1`;
}

/** $1 table: one row when the service created (or adopted) it. */
export function ownedTableSql(schema: string): string {
  return `SELECT 1 AS owned FROM ${control(schema, ControlTables.ownedTables)} WHERE table_name = $1`;
}

/** $1 table: records it as the service's (no upsert in Redshift: a record of the same name goes first). */
export function recordOwnedTableSql(schema: string, dialect: SqlDialect = 'redshift'): string[] {
  return [
    `DELETE FROM ${control(schema, ControlTables.ownedTables)} WHERE table_name = $1`,
    `INSERT INTO ${control(schema, ControlTables.ownedTables)} (table_name, recorded_at) VALUES ($1, ${loadTime(dialect)})`,
  ];
}

/** $1 target table: one row when a fence or seed record of versions before svc_sys_owned_tables names it. */
export function namedByEarlierVersionSql(schema: string): string {
  return `SELECT 1 AS named FROM ${control(schema, ControlTables.tableFences)} WHERE table_name = $1
UNION ALL
SELECT 1 AS named FROM ${control(schema, ControlTables.tableSeeds)} WHERE table_name = $1`;
}

/** $1 schema, $2 table: the table's columns in order (none when it does not exist). */
export const TABLE_COLUMNS_SQL = `SELECT column_name::VARCHAR(128) AS name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`;

/**
 * $1 schema, $2 table: the table's columns with their types as information_schema spells them (`character
 * varying(160)`, `numeric(12,2)`, `integer`), in order; none when it does not exist.
 */
export const TABLE_COLUMN_TYPES_SQL = `SELECT column_name::VARCHAR(128) AS name,
  (data_type || CASE
    WHEN character_maximum_length IS NOT NULL THEN '(' || character_maximum_length || ')'
    WHEN data_type = 'numeric' AND numeric_precision IS NOT NULL THEN '(' || numeric_precision || ',' || coalesce(numeric_scale, 0) || ')'
    ELSE '' END)::VARCHAR(256) AS type
FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`;

/**
 * Lengthens a VARCHAR column, the only type change Redshift makes in place (ALTER TABLE: "ALTER COLUMN column_name
 * TYPE updated_varchar_data_type_size"); it cannot run inside a transaction block.
 */
export function alterVarcharLengthSql(qualifiedTable: string, column: string, type: string): string {
  return `ALTER TABLE ${qualifiedTable} ALTER COLUMN ${quoteIdent(column)} TYPE ${type}`;
}

/** On PostgreSQL (the suite's Redshift-dialect pair) binary is held as the hex text the files carry: PostgreSQL's COPY reads bytea only with its `\x`. */
function columnType(column: LayoutColumn, dialect: SqlDialect): string {
  return dialect === 'postgres' && column.redshift.form === 'hex' ? 'text' : column.redshift.type;
}

function columnDefinitions(layout: RedshiftLayout, dialect: SqlDialect): string[] {
  const keys = new Set(layout.keyColumns);
  return layout.columns.map((column) => `${quoteIdent(column.name)} ${columnType(column, dialect)}${keys.has(column.name) ? ' NOT NULL' : ''}`);
}

/**
 * The target. Only key columns are NOT NULL; PRIMARY KEY is informational in Redshift (the merges keep one
 * row per key, or one current row per key for Type2). Type2 rows get a row id of their own.
 */
export function createTargetSql(layout: RedshiftLayout, dialect: SqlDialect = 'redshift'): string {
  const lines = columnDefinitions(layout, dialect);
  if (layout.addUpdateTimestamp) lines.push(`${UPDATE_TIMESTAMP} TIMESTAMP`);
  switch (layout.history) {
    case 'plain':
      break;
    case 'type1':
      lines.push(`PRIMARY KEY (${columnList(layout.keyColumns)})`);
      break;
    case 'type2':
      lines.push(
        `${VALID_FROM} TIMESTAMP NOT NULL`,
        `${VALID_TO} TIMESTAMP`,
        `${IS_CURRENT} BOOLEAN NOT NULL`,
        `${IS_DELETED} BOOLEAN NOT NULL DEFAULT false`,
        `${quoteIdent(SystemColumns.rowId)} ${dialect === 'postgres' ? 'BIGINT GENERATED BY DEFAULT AS IDENTITY' : 'BIGINT IDENTITY(1,1)'}`,
      );
      break;
  }
  return `CREATE TABLE IF NOT EXISTS ${layout.qualifiedTarget} (\n  ${lines.join(',\n  ')}\n)`;
}

/** Where a seed's parts collect until its final part merges them: the table's columns, no constraints. */
export function createShadowSql(layout: RedshiftLayout, dialect: SqlDialect = 'redshift'): string {
  const lines = layout.columns.map((column) => `${quoteIdent(column.name)} ${columnType(column, dialect)}`);
  return `CREATE TABLE IF NOT EXISTS ${layout.qualifiedShadow} (\n  ${lines.join(',\n  ')}\n)`;
}

/** Redshift adds one column per ALTER TABLE; an added column is nullable (rows already there have no value). */
export function addColumnSql(qualifiedTable: string, column: LayoutColumn, dialect: SqlDialect = 'redshift'): string {
  return `ALTER TABLE ${qualifiedTable} ADD COLUMN ${quoteIdent(column.name)} ${columnType(column, dialect)}`;
}

/** The change rows' table: svc_op, then the table's columns. Redshift has no ON COMMIT DROP: an earlier one of the session goes first. */
export function createLoadTableSql(layout: RedshiftLayout, dialect: SqlDialect = 'redshift'): string[] {
  const lines = [`${OP} CHAR(1) NOT NULL`, ...layout.columns.map((column) => `${quoteIdent(column.name)} ${columnType(column, dialect)}`)];
  return [`DROP TABLE IF EXISTS ${LOAD}`, `CREATE TEMP TABLE ${LOAD} (\n  ${lines.join(',\n  ')}\n)`];
}

/** The columns a change batch's files hold, in order. */
export const changeFileColumns = (layout: RedshiftLayout): string[] => [CHANGE_OPERATION_COLUMN, ...names(layout)];
/** The columns a seed part's files hold, in order. */
export const seedFileColumns = (layout: RedshiftLayout): string[] => names(layout);

/** Part 0 of a seed empties the shadow: DELETE, since TRUNCATE would commit the load's transaction. */
export function emptyShadowSql(layout: RedshiftLayout): string {
  return `DELETE FROM ${layout.qualifiedShadow}`;
}

/**
 * $1 schema, $2 table (as stored): a row when a view reads the table (a late-binding view records no dependency). A
 * shadow that one reads is emptied and kept after its seed instead of dropped: Redshift has no savepoint to try the
 * DROP and go on (the catalogs are those of amazon-redshift-utils' v_view_dependency: pg_depend, pg_rewrite).
 */
export const TABLE_DEPENDENTS_SQL = `SELECT 1 AS found FROM pg_catalog.pg_depend AS d
JOIN pg_catalog.pg_rewrite AS r ON r.oid = d.objid
JOIN pg_catalog.pg_class AS c ON c.oid = d.refobjid
JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relname = $2 AND r.ev_class <> d.refobjid
LIMIT 1`;

/** Applies the change rows of the load table to the target (each key once: net change per key); `now` is the load's stamp. */
export function mergeChangesSql(layout: RedshiftLayout, now: string): string[] {
  switch (layout.history) {
    case 'type1':
      return type1Changes(layout, now);
    case 'type2':
      return type2Changes(layout, now);
    case 'plain':
      throw new Error(`${layout.target} has no primary key: its changes are not tracked`);
  }
}

/**
 * A chunked seed's close: the load table's changes applied to the shadow, which holds the seed's rows as its files do
 * (the source's columns, no history): every key of the batch loses its row, and inserts and updates bring the new one.
 */
export function mergeChangesIntoShadowSql(layout: RedshiftLayout): string[] {
  return [
    `DELETE FROM ${layout.qualifiedShadow}
USING ${LOAD} AS ${L}
WHERE ${keysMatch(quoteIdent(layout.shadow), L, layout)}`,
    `INSERT INTO ${layout.qualifiedShadow} (${columnList(names(layout))})
SELECT ${names(layout)
      .map((name) => `${L}.${quoteIdent(name)}`)
      .join(', ')}
FROM ${LOAD} AS ${L}
WHERE ${L}.${OP} <> 'D'`,
  ];
}

/** Replaces the target's content by the completed seed in the shadow, then empties the shadow; `now` is the load's stamp. */
export function mergeSeedSql(layout: RedshiftLayout, now: string): string[] {
  switch (layout.history) {
    case 'type1':
      return [...type1Seed(layout, now), emptyShadowSql(layout)];
    case 'type2':
      return [...type2Seed(layout, now), emptyShadowSql(layout)];
    case 'plain':
      return [`DELETE FROM ${layout.qualifiedTarget}`, insertRows(layout, now, layout.qualifiedShadow, S), emptyShadowSql(layout)];
  }
}

/** Type1: every key of the batch loses its row; inserts and updates bring the new one. */
function type1Changes(layout: RedshiftLayout, now: string): string[] {
  return [
    `DELETE FROM ${layout.qualifiedTarget}
USING ${LOAD} AS ${L}
WHERE ${keysMatch(quoteIdent(layout.target), L, layout)}`,
    insertRows(layout, now, LOAD, L, `${L}.${OP} <> 'D'`),
  ];
}

/**
 * Type2: an insert or update equal to the current row is dropped first (no version for a change that changes
 * nothing); then the current row of every remaining key is closed (a delete marks it deleted) and inserts and
 * updates become current.
 */
function type2Changes(layout: RedshiftLayout, now: string): string[] {
  const target = quoteIdent(layout.target);
  const nonKey = nonKeyColumns(layout);
  const unchanged = nonKey.length > 0 ? `\n  AND ${sameValues(T, LOAD, nonKey)}` : '';
  // Only a key's one current row makes a change "unchanged": a key with a second current row (a broken copy a repair
  // re-applies) has all of them closed and one made anew.
  const rowId = quoteIdent(SystemColumns.rowId);
  const alone = `\n  AND NOT EXISTS (SELECT 1 FROM ${layout.qualifiedTarget} AS ${O} WHERE ${O}.${IS_CURRENT} AND ${keysMatch(O, LOAD, layout)} AND ${O}.${rowId} <> ${T}.${rowId})`;
  return [
    `DELETE FROM ${LOAD}
USING ${layout.qualifiedTarget} AS ${T}
WHERE ${LOAD}.${OP} <> 'D'
  AND ${T}.${IS_CURRENT}
  AND ${keysMatch(T, LOAD, layout)}${unchanged}${alone}`,
    `UPDATE ${layout.qualifiedTarget}
SET ${closeAssignments(layout, now, `(${L}.${OP} = 'D')`)}
FROM ${LOAD} AS ${L}
WHERE ${target}.${IS_CURRENT}
  AND ${keysMatch(target, L, layout)}`,
    insertCurrentRows(layout, now, LOAD, L, `${L}.${OP} <> 'D'`),
  ];
}

/** Type1 seed: keys the snapshot lacks go, rows whose values changed are replaced, new keys come in; unchanged rows stay. */
function type1Seed(layout: RedshiftLayout, now: string): string[] {
  const target = quoteIdent(layout.target);
  const nonKey = nonKeyColumns(layout);
  const gone = `DELETE FROM ${layout.qualifiedTarget}
WHERE ${notExists(layout.qualifiedShadow, S, [keysMatch(S, target, layout, '    ')])}`;
  const changed = `DELETE FROM ${layout.qualifiedTarget}
USING ${layout.qualifiedShadow} AS ${S}
WHERE ${keysMatch(target, S, layout)}
  AND NOT (${sameValues(target, S, nonKey)})`;
  const added = insertRows(layout, now, layout.qualifiedShadow, S, notExists(layout.qualifiedTarget, T, [keysMatch(T, S, layout, '    ')]));
  return [gone, ...(nonKey.length > 0 ? [changed] : []), added];
}

/**
 * Type2 seed: current rows whose key the snapshot lacks are closed as deleted, current rows whose values
 * differ are closed, and every snapshot row without a current row becomes current. Unchanged keys keep theirs.
 */
function type2Seed(layout: RedshiftLayout, now: string): string[] {
  const target = quoteIdent(layout.target);
  const nonKey = nonKeyColumns(layout);
  const closeDeleted = `UPDATE ${layout.qualifiedTarget}
SET ${closeAssignments(layout, now, 'true')}
WHERE ${target}.${IS_CURRENT}
  AND ${notExists(layout.qualifiedShadow, S, [keysMatch(S, target, layout, '    ')])}`;
  const closeChanged = `UPDATE ${layout.qualifiedTarget}
SET ${closeAssignments(layout, now)}
FROM ${layout.qualifiedShadow} AS ${S}
WHERE ${target}.${IS_CURRENT}
  AND ${keysMatch(S, target, layout)}
  AND NOT (${sameValues(target, S, nonKey)})`;
  const insertNew = insertCurrentRows(layout, now, layout.qualifiedShadow, S, notExists(layout.qualifiedTarget, T, [`${T}.${IS_CURRENT}`, keysMatch(T, S, layout, '    ')]));
  return [closeDeleted, ...(nonKey.length > 0 ? [closeChanged] : []), insertNew];
}

/** Closing a Type2 row: its validity ends now; `deleted` (an SQL expression), when given, marks it deleted. */
function closeAssignments(layout: RedshiftLayout, now: string, deleted?: string): string {
  const assignments = [`${VALID_TO} = ${now}`, `${IS_CURRENT} = false`];
  if (deleted !== undefined) assignments.push(`${IS_DELETED} = ${deleted}`);
  if (layout.addUpdateTimestamp) assignments.push(`${UPDATE_TIMESTAMP} = ${now}`);
  return assignments.join(',\n    ');
}

function insertRows(layout: RedshiftLayout, now: string, source: string, alias: string, condition?: string): string {
  return `INSERT INTO ${layout.qualifiedTarget} (${columnList(targetColumns(layout))})
SELECT ${rowValues(layout, alias, now)}
FROM ${source} AS ${alias}${condition === undefined ? '' : `\nWHERE ${condition}`}`;
}

function insertCurrentRows(layout: RedshiftLayout, now: string, source: string, alias: string, condition: string): string {
  const validity = [SystemColumns.validFrom, SystemColumns.validTo, SystemColumns.isCurrent, SystemColumns.isDeleted];
  return `INSERT INTO ${layout.qualifiedTarget} (${columnList(targetColumns(layout, validity))})
SELECT ${rowValues(layout, alias, now, [now, 'NULL', 'true', 'false'])}
FROM ${source} AS ${alias}
WHERE ${condition}`;
}

function names(layout: RedshiftLayout): string[] {
  return layout.columns.map((column) => column.name);
}

function nonKeyColumns(layout: RedshiftLayout): LayoutColumn[] {
  const keys = new Set(layout.keyColumns);
  return layout.columns.filter((column) => !keys.has(column.name));
}

function columnList(columnNames: readonly string[]): string {
  return columnNames.map(quoteIdent).join(', ');
}

/** The columns an INSERT into the target fills: the table's, then `system` ones, then the update timestamp. */
function targetColumns(layout: RedshiftLayout, system: readonly string[] = []): string[] {
  return [...names(layout), ...system, ...(layout.addUpdateTimestamp ? [SystemColumns.updateTimestamp] : [])];
}

function rowValues(layout: RedshiftLayout, alias: string, now: string, system: readonly string[] = []): string {
  return [...names(layout).map((name) => `${alias}.${quoteIdent(name)}`), ...system, ...(layout.addUpdateTimestamp ? [now] : [])].join(', ');
}

/**
 * `t."id" = l."id" AND …` (keys are never NULL); `indent` lines up the ANDs of a nested clause. Text keys compare as
 * the source compares them (equalValues).
 */
function keysMatch(left: string, right: string, layout: RedshiftLayout, indent = ''): string {
  const columns = new Map(layout.columns.map((column) => [column.name, column]));
  return layout.keyColumns
    .map((key) => {
      const column = columns.get(key);
      const [a, b] = [`${left}.${quoteIdent(key)}`, `${right}.${quoteIdent(key)}`];
      return column === undefined ? `${a} = ${b}` : equalValues(a, b, column);
    })
    .join(`\n${indent}  AND `);
}

/**
 * `a = b`; for CHAR and VARCHAR, as the source compares text, where 'a', 'a ' and 'A' are three values. Redshift's `=`
 * ignores trailing blanks ("Trailing spaces in VARCHAR and CHAR values are treated as semantically insignificant when
 * values are compared", https://docs.aws.amazon.com/redshift/latest/dg/r_Character_types.html), so the lengths in bytes
 * are compared too; and in a database created COLLATE CASE_INSENSITIVE every CHAR and VARCHAR column the service
 * declared is case-insensitive ("The COLLATE clause specifies the default collation for all CHAR and VARCHAR columns in
 * the database", r_CREATE_DATABASE.html), so both sides are compared under COLLATE(…, 'case_sensitive') (r_COLLATE.html),
 * whatever the database, and whenever the table was created. Both sides: Redshift refuses to compare a case-sensitive
 * value with a case-insensitive one ("Query with different collations is not supported yet", r_CREATE_DATABASE.html).
 */
function equalValues(a: string, b: string, column: LayoutColumn): string {
  if (column.redshift.capacityBytes === null || column.redshift.form !== 'text') return `${a} = ${b}`;
  return `(${caseSensitive(a)} = ${caseSensitive(b)} AND OCTET_LENGTH(${a}) = OCTET_LENGTH(${b}))`;
}

/** A CHAR or VARCHAR expression compared case-sensitively, whatever the column's or the database's collation. */
export const caseSensitive = (text: string): string => `COLLATE(${text}, 'case_sensitive')`;

function notExists(table: string, alias: string, conditions: readonly string[]): string {
  return `NOT EXISTS (
    SELECT 1 FROM ${table} AS ${alias}
    WHERE ${conditions.join('\n      AND ')}
  )`;
}

/**
 * Every column holds the same value on both sides, NULL equal to NULL (Redshift has no IS NOT DISTINCT FROM). Never
 * NULL itself, so that `NOT (…)` is true for a NULL against a value.
 * Text compares as the source compares it (equalValues): 'a', 'a ' and 'A' differ.
 */
function sameValues(left: string, right: string, columns: readonly LayoutColumn[]): string {
  if (columns.length === 0) return 'true';
  return columns
    .map((column) => {
      const [a, b] = [`${left}.${quoteIdent(column.name)}`, `${right}.${quoteIdent(column.name)}`];
      const equal = equalValues(a, b, column);
      return `((${a} IS NULL AND ${b} IS NULL) OR (${a} IS NOT NULL AND ${b} IS NOT NULL AND ${equal}))`;
    })
    .join('\n  AND ');
}
