import type { ClientBase } from 'pg';
import { lockTable } from './control-tables';
import { addColumnSql, createShadowSql, createTargetSql, shadowColumns, targetColumns, type ColumnSpec } from './table-ddl';
import type { TableLayout } from './table-layout';

export interface EnsureOutcome {
  created: boolean;
  /** Source columns the existing target lacked and got. */
  addedColumns: string[];
}

/** Creates target and shadow, or adds the columns they lack. Runs in the caller's transaction. */
export async function ensureTableInTransaction(client: ClientBase, layout: TableLayout): Promise<EnsureOutcome> {
  await lockTable(client, layout);
  const targetHas = await existingColumns(client, layout.qualifiedTarget);
  let created = false;
  let added: string[] = [];
  if (targetHas === null) {
    for (const statement of createTargetSql(layout)) await client.query(statement);
    created = true;
  } else {
    added = await addMissing(client, layout.qualifiedTarget, targetColumns(layout), targetHas);
  }
  const shadowHas = await existingColumns(client, layout.qualifiedShadow);
  if (shadowHas === null) await client.query(createShadowSql(layout));
  else await addMissing(client, layout.qualifiedShadow, shadowColumns(layout), shadowHas);
  const sourceColumns = new Set(layout.columns.map((column) => column.name));
  return { created, addedColumns: added.filter((name) => sourceColumns.has(name)) };
}

async function addMissing(client: ClientBase, qualifiedTable: string, wanted: ColumnSpec[], existing: Set<string>): Promise<string[]> {
  const missing = wanted.filter((column) => !existing.has(column.name));
  for (const column of missing) await client.query(addColumnSql(qualifiedTable, column));
  return missing.map((column) => column.name);
}

/** Column names of a table; null when it does not exist. */
async function existingColumns(client: ClientBase, qualifiedTable: string): Promise<Set<string> | null> {
  const result = await client.query<{ columns: string[] }>(
    `SELECT array(
  SELECT a.attname::text FROM pg_catalog.pg_attribute AS a
  WHERE a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped
) AS columns
FROM (SELECT to_regclass($1) AS oid) AS r
WHERE r.oid IS NOT NULL`,
    [qualifiedTable],
  );
  const row = result.rows[0];
  return row === undefined ? null : new Set(row.columns);
}
