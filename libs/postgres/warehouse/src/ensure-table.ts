import { claimWarehouseTables } from '@svc/engines';
import type { ClientBase } from 'pg';
import { lockTable, ownershipLedger } from './control-tables';
import { fitIdentifier, qualifiedName, quoteIdent } from './identifiers';
import { addColumnSql, createShadowSql, createTargetSql, shadowColumns, targetColumns, type ColumnSpec } from './table-ddl';
import { SystemColumns, type TableLayout } from './table-layout';

export interface EnsureOutcome {
  created: boolean;
  /** Source columns the existing target lacked and got. */
  addedColumns: string[];
  /** The ScdType changed: the previous target was renamed to this and a new one created (to be seeded). */
  keptAs?: string;
}

/**
 * Creates target and shadow, or adds the columns they lack. Runs in the caller's transaction. An existing target
 * or shadow the service did not create is left as it is: ForeignTableError (claimWarehouseTables).
 */
export async function ensureTableInTransaction(client: ClientBase, layout: TableLayout): Promise<EnsureOutcome> {
  await lockTable(client, layout);
  let targetHas = await existingColumns(client, layout.qualifiedTarget);
  const shadowHas = await existingColumns(client, layout.qualifiedShadow);
  const pair = { schema: layout.schema, target: layout.target, targetExists: targetHas !== null, shadow: layout.shadow, shadowExists: shadowHas !== null };
  await claimWarehouseTables(ownershipLedger(client, layout), pair);
  let created = false;
  let added: string[] = [];
  let keptAs: string | undefined;
  if (targetHas !== null && scdTypeChanged(layout, targetHas)) {
    keptAs = await setAside(client, layout, targetHas.has(SystemColumns.validFrom) ? 'type2' : 'type1');
    targetHas = null;
  }
  if (targetHas === null) {
    for (const statement of createTargetSql(layout)) await client.query(statement);
    created = true;
  } else {
    added = await addMissing(client, layout.qualifiedTarget, targetColumns(layout), targetHas);
  }
  if (shadowHas === null) await client.query(createShadowSql(layout));
  else await addMissing(client, layout.qualifiedShadow, shadowColumns(layout), shadowHas);
  const sourceColumns = new Set(layout.columns.map((column) => column.name));
  const addedColumns = added.filter((name) => sourceColumns.has(name)).map((name) => layout.sourceNames.get(name) ?? name);
  return { created, addedColumns, ...(keptAs !== undefined && { keptAs }) };
}

/** A keyed table whose history columns say another ScdType than the replication's. */
function scdTypeChanged(layout: TableLayout, existing: Set<string>): boolean {
  if (layout.history === 'plain') return false;
  return existing.has(SystemColumns.validFrom) !== (layout.history === 'type2');
}

/**
 * Renames the table of the previous ScdType to `<table>_<type>_<UTC timestamp>` (its data stays in the
 * warehouse) so the new one can be created and seeded; the Type2 current-key index is renamed with it.
 */
async function setAside(client: ClientBase, layout: TableLayout, previous: 'type1' | 'type2'): Promise<string> {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '_').slice(0, 15);
  const keptAs = fitIdentifier(`${layout.target}_${previous}_${stamp}`);
  await client.query(`ALTER TABLE ${layout.qualifiedTarget} RENAME TO ${quoteIdent(keptAs)}`);
  await client.query(`ALTER INDEX IF EXISTS ${qualifiedName(layout.schema, layout.currentKeyIndex)} RENAME TO ${quoteIdent(fitIdentifier(`${keptAs}_current`))}`);
  return keptAs;
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
