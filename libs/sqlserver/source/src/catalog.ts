import { Portable, type ColumnDefinition, type PortableType, type TableDefinition, type TableRef } from '@svc/contracts';
import { UnsupportedColumnTypeError, columnPlan } from '@svc/sqlserver/common';

/** A row of DISCOVER_COLUMNS_SQL as the driver returns it. */
export interface CatalogRow {
  table_schema: string;
  table_name: string;
  column_name: string;
  type_name: string;
  is_clr_type: number;
  max_length: number;
  precision: number;
  scale: number;
  is_nullable: number;
  /** sys.columns.collation_name: the collation of a character column, NULL for others. */
  collation_name?: string | null;
  has_default: number;
  key_ordinal: number | null;
  /** SUM(bigint): the driver returns it as a string. */
  estimated_rows: string | number | null;
}

/**
 * What a column of a system type the source does not know becomes: `refuse` (a table about to be read) fails
 * with UnsupportedColumnTypeError naming table, column and type; `list` (discovery, which only selects tables)
 * lists it as text, so that the other tables are discovered and this one is registered and then stopped with
 * that reason when it is described for its read.
 */
export type UnknownTypes = 'refuse' | 'list';

/** Catalog rows (ordered by table, then column) as table definitions, primary keys in key order. */
export function definitionsOf(rows: readonly CatalogRow[], unknownTypes: UnknownTypes = 'refuse'): TableDefinition[] {
  const tables: { definition: TableDefinition; keys: { name: string; ordinal: number }[] }[] = [];
  for (const row of rows) {
    let last = tables[tables.length - 1];
    if (!last || last.definition.table.schema !== row.table_schema || last.definition.table.name !== row.table_name) {
      last = {
        definition: {
          table: { schema: row.table_schema, name: row.table_name },
          columns: [],
          primaryKey: [],
          estimatedRows: Math.max(0, Math.round(Number(row.estimated_rows ?? 0))),
        },
        keys: [],
      };
      tables.push(last);
    }
    last.definition.columns.push(columnOf(row, last.definition.table, unknownTypes));
    if (row.key_ordinal !== null) last.keys.push({ name: row.column_name, ordinal: row.key_ordinal });
  }
  return tables.map(({ definition, keys }) => ({
    ...definition,
    primaryKey: [...keys].sort((a, b) => a.ordinal - b.ordinal).map((key) => key.name),
  }));
}

function columnOf(row: CatalogRow, table: TableRef, unknownTypes: UnknownTypes): ColumnDefinition {
  const plan = planOf(row, table, unknownTypes);
  return {
    name: row.column_name,
    sourceType: plan.sourceType,
    portableType: plan.portableType,
    nullable: row.is_nullable === 1,
    ...(row.has_default === 1 && { hasDefault: true }),
    ...(typeof row.collation_name === 'string' && { collation: row.collation_name }),
  };
}

function planOf(row: CatalogRow, table: TableRef, unknownTypes: UnknownTypes): { sourceType: string; portableType: PortableType } {
  try {
    return columnPlan({
      name: row.column_name,
      typeName: row.type_name,
      isClrType: row.is_clr_type === 1,
      maxLength: row.max_length,
      precision: row.precision,
      scale: row.scale,
    });
  } catch (error) {
    if (!(error instanceof UnsupportedColumnTypeError)) throw error;
    if (unknownTypes === 'list') return { sourceType: row.type_name, portableType: Portable.text() };
    throw new UnsupportedColumnTypeError(error.column, table);
  }
}
