import {
  ColumnTypeChangeError,
  columnChangeNotes,
  planColumnTypes,
  setAsideName,
  suspectedRenames,
  type ColumnNames,
  type ColumnTypeDrift,
  type FollowedTypes,
  type PairTable,
  type TypedColumn,
} from '@svc/engines';
import type { ClientBase } from 'pg';
import { fitIdentifier, qualifiedName, quoteIdent } from './identifiers';
import { addColumnSql, createShadowSql, createTargetSql, declaredType, shadowColumns, targetColumns, type ColumnSpec } from './table-ddl';
import { SystemColumns, type TableLayout } from './table-layout';

/*
 * The PostgreSQL steps of ensureTable (WarehouseProtocol decides their order): column types are widened in the
 * ensuring transaction, and the Type2 current-key index goes with a target set aside.
 */

/** The table's columns with their types, by name; null when it does not exist. */
export function tableColumns(client: ClientBase, layout: TableLayout, table: PairTable): Promise<Map<string, TypedColumn> | null> {
  return existingColumns(client, table === 'target' ? layout.qualifiedTarget : layout.qualifiedShadow);
}

/**
 * Widens the columns whose type the source widened, in target and shadow (a type change that is no lossless
 * widening is ColumnTypeChangeError, before anything is altered). The shadow is widened also when an ScdType
 * change sets the target aside: the seed that follows loads into it. Nothing is left for after the transaction.
 */
export async function followColumnTypes(
  client: ClientBase,
  layout: TableLayout,
  target: ReadonlyMap<string, TypedColumn> | null,
  shadow: ReadonlyMap<string, TypedColumn> | null,
): Promise<FollowedTypes<ColumnTypeDrift[]>> {
  const shadowWidening = shadow === null ? [] : widening(layout, shadow);
  let widened: ColumnTypeDrift[] = [];
  let renames: string[] = [];
  if (target !== null) {
    widened = widening(layout, target);
    if (widened.length > 0) await client.query(alterColumnTypesSql(layout.qualifiedTarget, widened));
    const sourceNames = new Set(layout.columns.map((column) => column.name));
    const userColumns = [...target.values()].filter((column) => sourceNames.has(column.name) || !isSystemColumn(column.name));
    renames = columnChangeNotes('the warehouse', [], suspectedRenames(userColumns, wantedColumns(layout)));
  }
  if (shadowWidening.length > 0) await client.query(alterColumnTypesSql(layout.qualifiedShadow, shadowWidening));
  return { renames, pending: widened };
}

export async function createTable(client: ClientBase, layout: TableLayout, table: PairTable): Promise<void> {
  if (table === 'shadow') await client.query(createShadowSql(layout));
  else for (const statement of createTargetSql(layout)) await client.query(statement);
}

/** The source names of the source columns the table lacked and got (system columns are added too, unnamed). */
export async function addMissingColumns(client: ClientBase, layout: TableLayout, table: PairTable, existing: ReadonlyMap<string, TypedColumn>): Promise<string[]> {
  const added =
    table === 'target' ? await addMissing(client, layout.qualifiedTarget, targetColumns(layout), existing) : await addMissing(client, layout.qualifiedShadow, shadowColumns(layout), existing);
  const sourceColumns = new Set(layout.columns.map((column) => column.name));
  return added.filter((name) => sourceColumns.has(name)).map((name) => layout.sourceNames.get(name) ?? name);
}

function wantedColumns(layout: TableLayout): TypedColumn[] {
  return layout.columns.map((column) => ({ name: column.name, type: declaredType(column) }));
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
export async function setAside(client: ClientBase, layout: TableLayout, existing: ColumnNames): Promise<string> {
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
