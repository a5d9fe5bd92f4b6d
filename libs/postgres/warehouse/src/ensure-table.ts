import {
  ColumnTypeChangeError,
  claimWarehouseTables,
  columnChangeNotes,
  planColumnTypes,
  scdTypeChanged,
  setAsideName,
  suspectedRenames,
  type ColumnNames,
  type ColumnTypeDrift,
  type TypedColumn,
} from '@svc/engines';
import type { ClientBase } from 'pg';
import { lockTable, ownershipLedger } from './control-tables';
import { fitIdentifier, qualifiedName, quoteIdent } from './identifiers';
import { addColumnSql, createShadowSql, createTargetSql, shadowColumns, targetColumns, type ColumnSpec } from './table-ddl';
import { SystemColumns, type TableLayout } from './table-layout';

export interface EnsureOutcome {
  created: boolean;
  /** Source columns the existing target lacked and got. */
  addedColumns: string[];
  /** Columns widened to the source's new type (columnChangeNotes), absent when none was. */
  schemaChanges?: string[];
  /** Columns that look renamed in the source (columnChangeNotes), absent when none does. */
  suspectedRenames?: string[];
  /** The ScdType changed: the previous target was renamed to this and a new one created (to be seeded). */
  keptAs?: string;
}

/**
 * Creates target and shadow, or adds the columns they lack and widens those whose type the source widened (a type
 * change that is no lossless widening is ColumnTypeChangeError, before anything is altered). Runs in the caller's
 * transaction. An existing target or shadow the service did not create is left as it is: ForeignTableError
 * (claimWarehouseTables).
 */
export async function ensureTableInTransaction(client: ClientBase, layout: TableLayout): Promise<EnsureOutcome> {
  await lockTable(client, layout);
  let targetHas = await existingColumns(client, layout.qualifiedTarget);
  const shadowHas = await existingColumns(client, layout.qualifiedShadow);
  const pair = { schema: layout.schema, target: layout.target, targetExists: targetHas !== null, shadow: layout.shadow, shadowExists: shadowHas !== null };
  await claimWarehouseTables(ownershipLedger(client, layout), pair);
  let created = false;
  let added: string[] = [];
  let widened: ColumnTypeDrift[] = [];
  let renames: string[] = [];
  let keptAs: string | undefined;
  // The shadow is widened also when an ScdType change sets the target aside: the seed that follows loads into it.
  const shadowWidening = shadowHas === null ? [] : widening(layout, shadowHas);
  if (targetHas !== null && !scdTypeChanged(layout.history, targetHas)) {
    widened = widening(layout, targetHas);
    if (widened.length > 0) await client.query(alterColumnTypesSql(layout.qualifiedTarget, widened));
    const sourceNames = new Set(layout.columns.map((column) => column.name));
    const userColumns = [...targetHas.values()].filter((column) => sourceNames.has(column.name) || !isSystemColumn(column.name));
    renames = columnChangeNotes('the warehouse', [], suspectedRenames(userColumns, wantedColumns(layout)));
  }
  if (shadowWidening.length > 0) await client.query(alterColumnTypesSql(layout.qualifiedShadow, shadowWidening));
  if (targetHas !== null && scdTypeChanged(layout.history, targetHas)) {
    keptAs = await setAside(client, layout, targetHas);
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
  const schemaChanges = columnChangeNotes('the warehouse', widened);
  return {
    created,
    addedColumns: added.filter((name) => sourceColumns.has(name)).map((name) => layout.sourceNames.get(name) ?? name),
    ...(schemaChanges.length > 0 && { schemaChanges }),
    ...(renames.length > 0 && { suspectedRenames: renames }),
    ...(keptAs !== undefined && { keptAs }),
  };
}

function wantedColumns(layout: TableLayout): TypedColumn[] {
  return layout.columns.map((column) => ({ name: column.name, type: column.portableType }));
}

/** The table's columns to widen to the source's types; throws ColumnTypeChangeError for a change no widening follows. */
function widening(layout: TableLayout, existing: ReadonlyMap<string, TypedColumn>): ColumnTypeDrift[] {
  const plan = planColumnTypes([...existing.values()], wantedColumns(layout));
  if (plan.incompatible.length > 0) throw new ColumnTypeChangeError(layout.table, 'the warehouse table', plan.incompatible);
  return plan.widen;
}

function isSystemColumn(name: string): boolean {
  return (Object.values(SystemColumns) as string[]).includes(name);
}

/** PostgreSQL keeps each column's NOT NULL and rebuilds the indexes on it; a view on the column refuses (the table stops, naming it). */
function alterColumnTypesSql(qualifiedTable: string, columns: readonly ColumnTypeDrift[]): string {
  return `ALTER TABLE ${qualifiedTable} ${columns.map((column) => `ALTER COLUMN ${quoteIdent(column.name)} TYPE ${column.to}`).join(', ')}`;
}

/**
 * Renames the table of the previous ScdType to `<table>_<type>_<UTC timestamp>` (its data stays in the
 * warehouse) so the new one can be created and seeded; the Type2 current-key index is renamed with it.
 */
async function setAside(client: ClientBase, layout: TableLayout, existing: ColumnNames): Promise<string> {
  const keptAs = fitIdentifier(setAsideName(layout.target, existing));
  await client.query(`ALTER TABLE ${layout.qualifiedTarget} RENAME TO ${quoteIdent(keptAs)}`);
  await client.query(`ALTER INDEX IF EXISTS ${qualifiedName(layout.schema, layout.currentKeyIndex)} RENAME TO ${quoteIdent(fitIdentifier(`${keptAs}_current`))}`);
  return keptAs;
}

async function addMissing(client: ClientBase, qualifiedTable: string, wanted: ColumnSpec[], existing: ReadonlyMap<string, TypedColumn>): Promise<string[]> {
  const missing = wanted.filter((column) => !existing.has(column.name));
  for (const column of missing) await client.query(addColumnSql(qualifiedTable, column));
  return missing.map((column) => column.name);
}

/** A table's columns with their types as format_type writes them, by name in ordinal order; null when it does not exist. */
async function existingColumns(client: ClientBase, qualifiedTable: string): Promise<Map<string, TypedColumn> | null> {
  const result = await client.query<{ columns: TypedColumn[] }>(
    `SELECT coalesce((
  SELECT json_agg(json_build_object('name', a.attname::text, 'type', format_type(a.atttypid, a.atttypmod)) ORDER BY a.attnum)
  FROM pg_catalog.pg_attribute AS a
  WHERE a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped
), '[]') AS columns
FROM (SELECT to_regclass($1) AS oid) AS r
WHERE r.oid IS NOT NULL`,
    [qualifiedTable],
  );
  const row = result.rows[0];
  return row === undefined ? null : new Map(row.columns.map((column) => [column.name, column]));
}
