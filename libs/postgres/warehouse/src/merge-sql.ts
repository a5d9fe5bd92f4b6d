import { CHANGE_OPERATION_COLUMN } from '@svc/contracts';
import type { TableRebuild } from '@svc/postgres/common';
import { quoteIdent } from './identifiers';
import { changedValues, columnList, keysMatch, notExists, sameValues } from './sql-fragments';
import { declaredType } from './table-ddl';
import { SystemColumns, type TableLayout } from './table-layout';

/** Session-local table the rows of a change batch are COPYed into; dropped at commit or rollback. */
export const LOAD_TABLE = 'svc_sys_load_rows';

const OP = quoteIdent(CHANGE_OPERATION_COLUMN);
const LOAD = quoteIdent(LOAD_TABLE);
const VALID_TO = quoteIdent(SystemColumns.validTo);
const IS_CURRENT = quoteIdent(SystemColumns.isCurrent);
const IS_DELETED = quoteIdent(SystemColumns.isDeleted);
const UPDATE_TIMESTAMP = quoteIdent(SystemColumns.updateTimestamp);
const ROW_ID = quoteIdent(SystemColumns.rowId);

/**
 * The temp table shaped like change rows: svc_op, then the table's columns. A group of change batches
 * (loadChangeGroup) loads several tables in one transaction: the load table of the member before goes first, in the
 * same round trip.
 */
export function createLoadTableSql(layout: TableLayout): string {
  const columns = layout.columns.map((column) => `${quoteIdent(column.name)} ${declaredType(column)}`);
  return `DROP TABLE IF EXISTS pg_temp.${LOAD};
CREATE TEMP TABLE ${LOAD} (
  ${OP} text NOT NULL CHECK (${OP} IN ('I', 'U', 'D')),
  ${columns.join(',\n  ')}
) ON COMMIT DROP`;
}

export function copyChangesSql(layout: TableLayout): string {
  return `COPY ${LOAD} (${columnList([CHANGE_OPERATION_COLUMN, ...names(layout)])}) FROM STDIN (FORMAT csv)`;
}

export function copySeedPartSql(layout: TableLayout): string {
  return `COPY ${layout.qualifiedShadow} (${columnList(names(layout))}) FROM STDIN (FORMAT csv)`;
}

/** Applies the change rows in the load table to the target (each key appears once: net change per key); `now` is the load's stamp (load-stamp.ts). */
export function mergeChangesSql(layout: TableLayout, now: string): string[] {
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
 * (the source's columns, no history, no index): every key of the batch loses its row (one scan of the shadow against the
 * batch's keys), and inserts and updates bring the new one.
 */
export function mergeChangesIntoShadowSql(layout: TableLayout): string[] {
  return [
    `DELETE FROM ${layout.qualifiedShadow}
WHERE (${columnList(layout.keyColumns)}) IN (SELECT ${columnList(layout.keyColumns, 'l')} FROM ${LOAD} AS l)`,
    `INSERT INTO ${layout.qualifiedShadow} (${columnList(names(layout))})
SELECT ${columnList(names(layout), 'l')}
FROM ${LOAD} AS l
WHERE l.${OP} <> 'D'`,
  ];
}

/**
 * A first seed of a Type1 or keyless table into an empty target: nothing to delete or compare, so a plain
 * INSERT…SELECT (about half the cost of INSERT…ON CONFLICT on millions of rows). Null when it does not apply.
 */
export function firstSeedSql(layout: TableLayout, now: string): string[] | null {
  if (layout.history === 'type2') return null;
  return [
    `INSERT INTO ${layout.qualifiedTarget} (${columnList(targetColumns(layout))})
SELECT ${rowValues(layout, 's', now)}
FROM ${layout.qualifiedShadow} AS s`,
  ];
}

/** True when the target holds no row (checked in the merging transaction, which holds the table's lock). */
export function targetIsEmptySql(layout: TableLayout): string {
  return `SELECT NOT EXISTS (SELECT 1 FROM ${layout.qualifiedTarget}) AS empty`;
}

/** Replaces the target's content by the completed seed in the shadow table; `now` is the load's stamp. */
export function mergeSeedSql(layout: TableLayout, now: string): string[] {
  switch (layout.history) {
    case 'type1':
      return type1Seed(layout, now);
    case 'type2':
      return type2Seed(layout, now);
    case 'plain':
      return plainSeed(layout, now);
  }
}

/**
 * Type1: every key of the batch loses its row; inserts and updates bring the new one. The delete is a semi-join
 * (the target scanned in its physical order, not probed in the batch's) and the insert goes in key order (the
 * key's index filled page by page): the same shapes as staging's, for the same measured reasons (staging-sql.ts).
 */
function type1Changes(layout: TableLayout, now: string): string[] {
  // The subquery's columns are qualified: a name it lacked would otherwise bind to the target and match every row.
  return [
    `DELETE FROM ${layout.qualifiedTarget}
WHERE (${columnList(layout.keyColumns)}) IN (SELECT ${columnList(layout.keyColumns, 'l')} FROM ${LOAD} AS l)`,
    `${type1InsertSql(layout, now)}
ORDER BY ${columnList(layout.keyColumns, 'l')}`,
  ];
}

function type1InsertSql(layout: TableLayout, now: string): string {
  return `INSERT INTO ${layout.qualifiedTarget} (${columnList(targetColumns(layout))})
SELECT ${rowValues(layout, 'l', now)}
FROM ${LOAD} AS l
WHERE l.${OP} <> 'D'`;
}

/**
 * A Type1 target rebuilt with the load table's changes (rebuildWithChanges), when they rewrite most of it; null for a
 * Type2 target, whose history keeps every row: its changes close rows and add new ones whatever their share.
 */
export function targetRebuildOf(layout: TableLayout, now: string): TableRebuild | null {
  if (layout.history !== 'type1') return null;
  return {
    qualifiedTable: layout.qualifiedTarget,
    keyColumns: layout.keyColumns,
    changesTable: `pg_temp.${LOAD}`,
    insertChangedRows: type1InsertSql(layout, now),
    changesAlias: 'l',
  };
}

/**
 * Type2: an insert or update whose values equal the current row's is dropped first (no new version for a
 * change that changes nothing, e.g. an update back and forth within one batch window); then the current
 * row of every remaining key is closed (deletes mark it deleted) and inserts and updates become current.
 */
function type2Changes(layout: TableLayout, now: string): string[] {
  const nonKey = nonKeyColumns(layout);
  const unchanged = nonKey.length > 0 ? `\n  AND ${sameValues('t', 'l', nonKey)}` : '';
  // Only a key's one current row makes a change "unchanged": a key with a second current row (a broken copy a repair
  // re-applies) has all of them closed and one made anew.
  const alone = `\n  AND NOT EXISTS (SELECT 1 FROM ${layout.qualifiedTarget} AS o WHERE o.${IS_CURRENT} AND ${keysMatch('o', 'l', layout.keyColumns)} AND o.${ROW_ID} <> t.${ROW_ID})`;
  return [
    `DELETE FROM ${LOAD} AS l
USING ${layout.qualifiedTarget} AS t
WHERE l.${OP} <> 'D'
  AND t.${IS_CURRENT}
  AND ${keysMatch('t', 'l', layout.keyColumns)}${unchanged}${alone}`,
    `UPDATE ${layout.qualifiedTarget} AS t
SET ${closeAssignments(layout, now, `(l.${OP} = 'D')`)}
FROM ${LOAD} AS l
WHERE t.${IS_CURRENT}
  AND ${keysMatch('t', 'l', layout.keyColumns)}`,
    `${insertCurrentRows(layout, now, LOAD, 'l', `l.${OP} <> 'D'`)}
ORDER BY ${columnList(layout.keyColumns, 'l')}`,
  ];
}

/** Type1 seed: keys missing from the snapshot are deleted; the rest is upserted, touching only changed rows. */
function type1Seed(layout: TableLayout, now: string): string[] {
  const nonKey = nonKeyColumns(layout);
  const updated = layout.addUpdateTimestamp ? [...nonKey, SystemColumns.updateTimestamp] : nonKey;
  const updates = updated.map((name) => `${quoteIdent(name)} = excluded.${quoteIdent(name)}`);
  const onConflict =
    nonKey.length === 0
      ? 'DO NOTHING'
      : `DO UPDATE
SET ${updates.join(',\n    ')}
WHERE ${changedValues('t', 'excluded', nonKey)}`;
  return [
    `DELETE FROM ${layout.qualifiedTarget} AS t
WHERE ${notExists(layout.qualifiedShadow, 's', [keysMatch('s', 't', layout.keyColumns, '    ')])}`,
    `INSERT INTO ${layout.qualifiedTarget} AS t (${columnList(targetColumns(layout))})
SELECT ${rowValues(layout, 's', now)}
FROM ${layout.qualifiedShadow} AS s
ON CONFLICT (${columnList(layout.keyColumns)}) ${onConflict}`,
  ];
}

/**
 * Type2 seed: current rows whose key the snapshot lacks are closed as deleted, current rows whose values
 * differ are closed, and every snapshot row without a current row (new, changed or re-appeared keys)
 * becomes current. Unchanged keys keep their row.
 */
function type2Seed(layout: TableLayout, now: string): string[] {
  const nonKey = nonKeyColumns(layout);
  const closeDeleted = `UPDATE ${layout.qualifiedTarget} AS t
SET ${closeAssignments(layout, now, 'true')}
WHERE t.${IS_CURRENT}
  AND ${notExists(layout.qualifiedShadow, 's', [keysMatch('s', 't', layout.keyColumns, '    ')])}`;
  const closeChanged = `UPDATE ${layout.qualifiedTarget} AS t
SET ${closeAssignments(layout, now)}
FROM ${layout.qualifiedShadow} AS s
WHERE t.${IS_CURRENT}
  AND ${keysMatch('s', 't', layout.keyColumns)}
  AND ${changedValues('t', 's', nonKey)}`;
  const insertNew = insertCurrentRows(
    layout,
    now,
    layout.qualifiedShadow,
    's',
    notExists(layout.qualifiedTarget, 't', [`t.${IS_CURRENT}`, keysMatch('t', 's', layout.keyColumns, '    ')]),
  );
  return [closeDeleted, ...(nonKey.length > 0 ? [closeChanged] : []), insertNew];
}

/** Without a key a row has no identity: a reseed replaces the table's content. */
function plainSeed(layout: TableLayout, now: string): string[] {
  return [
    `DELETE FROM ${layout.qualifiedTarget}`,
    `INSERT INTO ${layout.qualifiedTarget} (${columnList(targetColumns(layout))})
SELECT ${rowValues(layout, 's', now)}
FROM ${layout.qualifiedShadow} AS s`,
  ];
}

/** Closing a Type2 row: its validity ends now; `deleted` (an SQL expression) when given, marks it deleted. */
function closeAssignments(layout: TableLayout, now: string, deleted?: string): string {
  const assignments = [`${VALID_TO} = ${now}`, `${IS_CURRENT} = false`];
  if (deleted !== undefined) assignments.push(`${IS_DELETED} = ${deleted}`);
  if (layout.addUpdateTimestamp) assignments.push(`${UPDATE_TIMESTAMP} = ${now}`);
  return assignments.join(',\n    ');
}

function insertCurrentRows(layout: TableLayout, now: string, source: string, alias: string, condition: string): string {
  const validity = [SystemColumns.validFrom, SystemColumns.validTo, SystemColumns.isCurrent, SystemColumns.isDeleted];
  return `INSERT INTO ${layout.qualifiedTarget} (${columnList(targetColumns(layout, validity))})
SELECT ${rowValues(layout, alias, now, [now, 'NULL', 'true', 'false'])}
FROM ${source} AS ${alias}
WHERE ${condition}`;
}

function names(layout: TableLayout): string[] {
  return layout.columns.map((column) => column.name);
}

function nonKeyColumns(layout: TableLayout): string[] {
  const keys = new Set(layout.keyColumns);
  return names(layout).filter((name) => !keys.has(name));
}

/** The columns an INSERT into the target fills: the table's, then `system` ones, then the update timestamp. */
function targetColumns(layout: TableLayout, system: readonly string[] = []): string[] {
  return [...names(layout), ...system, ...(layout.addUpdateTimestamp ? [SystemColumns.updateTimestamp] : [])];
}

/** The values for targetColumns: the row's columns from `alias`, the `system` values, the load's stamp. */
function rowValues(layout: TableLayout, alias: string, now: string, system: readonly string[] = []): string {
  return [...names(layout).map((name) => `${alias}.${quoteIdent(name)}`), ...system, ...(layout.addUpdateTimestamp ? [now] : [])].join(', ');
}
