import type { ColumnDefinition, TableDefinition } from '@svc/contracts';
import { columnPlan } from '@svc/sqlserver-common';

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

/** Catalog rows (ordered by table, then column) as table definitions, primary keys in key order. */
export function definitionsOf(rows: readonly CatalogRow[]): TableDefinition[] {
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
    last.definition.columns.push(columnOf(row));
    if (row.key_ordinal !== null) last.keys.push({ name: row.column_name, ordinal: row.key_ordinal });
  }
  return tables.map(({ definition, keys }) => ({
    ...definition,
    primaryKey: [...keys].sort((a, b) => a.ordinal - b.ordinal).map((key) => key.name),
  }));
}

function columnOf(row: CatalogRow): ColumnDefinition {
  const plan = columnPlan({
    name: row.column_name,
    typeName: row.type_name,
    isClrType: row.is_clr_type === 1,
    maxLength: row.max_length,
    precision: row.precision,
    scale: row.scale,
  });
  return {
    name: row.column_name,
    sourceType: plan.sourceType,
    portableType: plan.portableType,
    nullable: row.is_nullable === 1,
    ...(row.has_default === 1 && { hasDefault: true }),
    ...(typeof row.collation_name === 'string' && { collation: row.collation_name }),
  };
}
