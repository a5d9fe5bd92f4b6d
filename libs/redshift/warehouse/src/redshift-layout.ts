import { CHANGE_OPERATION_COLUMN, hasPrimaryKey, warehouseTableName, type TableDefinition } from '@svc/contracts';
import { SystemColumns, type WarehouseLayout, type WarehouseTableOptions } from '@svc/engines';
import { warehouseColumnNames } from './redshift-column-names';
import { qualifiedName, shadowTableName, targetTableName } from './redshift-identifiers';
import { redshiftColumnType, type RedshiftColumnType } from './redshift-types';

const RESERVED_COLUMNS: ReadonlySet<string> = new Set([CHANGE_OPERATION_COLUMN, ...Object.values(SystemColumns)]);

export interface LayoutColumn {
  /** The column's name in Redshift: the source's, fitted to 127 bytes when longer (warehouseColumnNames). */
  name: string;
  /** The source column's name, when `name` was fitted. */
  sourceName?: string;
  redshift: RedshiftColumnType;
}

/** Everything the Redshift statements need to know about one warehouse table. */
export interface RedshiftLayout extends WarehouseLayout {
  /** The source table's warehouse name (`<schema>_<table>`), when `target` is it fitted to 127 bytes. */
  targetSourceName?: string;
  columns: LayoutColumn[];
}

export function redshiftLayout(definition: TableDefinition, options: WarehouseTableOptions, bareNameSchemas: ReadonlySet<string>): RedshiftLayout {
  const reserved = definition.columns.find((column) => RESERVED_COLUMNS.has(column.name));
  if (reserved !== undefined) throw new Error(`column "${reserved.name}" of ${definition.table.schema}.${definition.table.name} uses a name the service reserves`);
  const target = targetTableName(definition.table, bareNameSchemas);
  const shadow = shadowTableName(target);
  const names = warehouseColumnNames(`${definition.table.schema}.${definition.table.name}`, definition.columns.map((column) => column.name));
  const nameOf = new Map(definition.columns.map((column, index) => [column.name, names[index]?.name ?? column.name]));
  const fullName = warehouseTableName(definition.table, bareNameSchemas);
  return {
    table: definition.table,
    schema: options.schema,
    target,
    ...(target !== fullName && { targetSourceName: fullName }),
    shadow,
    qualifiedTarget: qualifiedName(options.schema, target),
    qualifiedShadow: qualifiedName(options.schema, shadow),
    history: !hasPrimaryKey(definition) ? 'plain' : options.scdType === 'Type2' ? 'type2' : 'type1',
    columns: definition.columns.map((column, index) => ({ ...(names[index] ?? { name: column.name }), redshift: redshiftColumnType(column.portableType) })),
    keyColumns: definition.primaryKey.map((key) => nameOf.get(key) ?? key),
    addUpdateTimestamp: options.addUpdateTimestamp,
  };
}

/** The layout's columns a table lacks, given the names Redshift lists for it (as stored, or as given). */
export function missingColumns(layout: RedshiftLayout, existing: ReadonlySet<string>): LayoutColumn[] {
  return layout.columns.filter((column) => !existing.has(column.name.toLowerCase()) && !existing.has(column.name));
}
