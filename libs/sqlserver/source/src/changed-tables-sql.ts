import type { TableRef } from '@svc/contracts';
import { qualifiedName, unicodeLiteral } from './identifiers';

/**
 * The statements of SourceConnector.changedTables on SQL Server, for `count` tables at the most per statement.
 * CHANGE_TRACKING_MIN_VALID_VERSION is NULL for a table that is not tracked, does not exist or the login may not
 * see ("CHANGE_TRACKING_MIN_VALID_VERSION (Transact-SQL)"); CHANGETABLE(CHANGES t, @last) returns the changes made
 * after @last ("CHANGETABLE (Transact-SQL)") and fails for a table that is not tracked, so the second statement
 * names only tables the first found tracked.
 */
export const PROBES_PER_STATEMENT = 500;

/**
 * Each table's minimum valid version (NULL: not tracked, gone or not visible), the database's current version and the
 * table's schema stamp when asked: sys.objects.modify_date, which "also changes when an index on the table or view is created or
 * altered" and on every ALTER TABLE ("sys.objects (Transact-SQL)"), with the table's column count (NULL: no such table).
 */
export function trackedVersionsSql(tables: readonly TableRef[], withSchemaStamps: boolean): string {
  const rows = tables.map((table, index) => `(${index}, ${unicodeLiteral(qualifiedName(table))})`).join(',\n  ');
  const stamp = withSchemaStamps
    ? `(SELECT CONVERT(varchar(33), o.modify_date, 126) + ':' + CONVERT(varchar(11), (SELECT COUNT(*) FROM sys.columns c WHERE c.object_id = o.object_id))
   FROM sys.objects o WHERE o.object_id = OBJECT_ID(t.[name]))`
    : 'CAST(NULL AS varchar(45))';
  return `SELECT t.[index], CHANGE_TRACKING_MIN_VALID_VERSION(OBJECT_ID(t.[name])) AS min_valid_version,
  CHANGE_TRACKING_CURRENT_VERSION() AS current_version,
  ${stamp} AS schema_stamp
FROM (VALUES
  ${rows}) AS t([index], [name])`;
}

/** The index of every table with a change after its @last (a plain bigint, spliced after parseVersion checked it). */
export function changeExistsSql(probes: readonly { index: number; table: TableRef; last: bigint }[]): string {
  return probes
    .map((probe) => `SELECT ${probe.index} AS [index] WHERE EXISTS (SELECT 1 FROM CHANGETABLE(CHANGES ${qualifiedName(probe.table)}, ${probe.last.toString()}) AS c)`)
    .join('\nUNION ALL\n');
}
