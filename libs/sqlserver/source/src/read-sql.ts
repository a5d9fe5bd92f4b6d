import type { TableDefinition } from '@svc/contracts';
import { CHANGE_OPERATION_COLUMN } from '@svc/contracts';
import { planOfSourceType } from '@svc/sqlserver/common';
import { qualifiedName, quoteName } from './identifiers';

/**
 * Seeds and change reads run in one SNAPSHOT transaction each, whose first statement reads
 * CHANGE_TRACKING_CURRENT_VERSION(), as Microsoft's synchronisation pattern does: a commit after it is in
 * the read or not, but its version is above the one read, so tracking reads it (again) and nothing is missed.
 */
export const CURRENT_VERSION_SQL = 'SELECT CHANGE_TRACKING_CURRENT_VERSION() AS current_version';

/** The columns of a read, each rendered as the pipeline's text (column-types.ts), in definition order. */
function renderedColumns(definition: TableDefinition, rowAlias: string, keyAlias?: string): string {
  const keys = new Set(definition.primaryKey);
  return definition.columns
    .map((column) => {
      const alias = keyAlias !== undefined && keys.has(column.name) ? keyAlias : rowAlias;
      return `${planOfSourceType(column.name, column.sourceType).select(`${alias}.${quoteName(column.name)}`)} AS ${quoteName(column.name)}`;
    })
    .join(',\n  ');
}

/** Every row of the table (or those a chunk's condition keeps, alias `t`), in no particular order. */
export function snapshotSelectSql(definition: TableDefinition, condition: string | null = null): string {
  return `SELECT ${renderedColumns(definition, 't')}
FROM ${qualifiedName(definition.table)} AS t${condition === null ? '' : `\nWHERE ${condition}`}`;
}

/**
 * The first change's version and the version of the change just past `@limit` in the window after @last,
 * up to @current (changeWindow turns them into the window's end).
 */
export function changeWindowSql(definition: TableDefinition): string {
  const changes = `CHANGETABLE(CHANGES ${qualifiedName(definition.table)}, @last) AS ct`;
  return `SELECT
  (SELECT MIN(ct.SYS_CHANGE_VERSION) FROM ${changes} WHERE ct.SYS_CHANGE_VERSION <= @current) AS first_version,
  (SELECT ct.SYS_CHANGE_VERSION FROM ${changes} WHERE ct.SYS_CHANGE_VERSION <= @current
    ORDER BY ct.SYS_CHANGE_VERSION OFFSET @limit ROWS FETCH NEXT 1 ROW ONLY) AS version_past_limit`;
}

/**
 * The net change of every key changed after @last and below @to, led by the operation: the current row
 * for an insert or update, the key alone for a delete. A key whose row the snapshot does not have reads as
 * a delete whatever CHANGETABLE says; a primary-key update reads as the old key's delete and the new one's insert.
 */
export function netChangesSql(definition: TableDefinition): string {
  const join = definition.primaryKey.map((key) => `t.${quoteName(key)} = ct.${quoteName(key)}`).join(' AND ');
  const firstKey = quoteName(definition.primaryKey[0] ?? '');
  return `SELECT CASE WHEN t.${firstKey} IS NULL THEN 'D' ELSE ct.SYS_CHANGE_OPERATION END AS ${quoteName(CHANGE_OPERATION_COLUMN)},
  ${renderedColumns(definition, 't', 'ct')}
FROM CHANGETABLE(CHANGES ${qualifiedName(definition.table)}, @last) AS ct
LEFT JOIN ${qualifiedName(definition.table)} AS t ON ${join}
WHERE ct.SYS_CHANGE_VERSION < @to`;
}
