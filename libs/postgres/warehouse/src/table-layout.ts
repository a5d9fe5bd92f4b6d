import { CHANGE_OPERATION_COLUMN, hasPrimaryKey, type ColumnDefinition, type TableDefinition } from '@svc/contracts';
import { SystemColumns as WarehouseSystemColumns, type TableHistory, type WarehouseLayout, type WarehouseTableOptions } from '@svc/engines';
import { fitIdentifier, qualifiedName } from './identifiers';
import { currentKeyIndexName, shadowTableName, targetTableName } from './table-names';

/** Columns the service adds to warehouse tables (DESIGN §6), and one PostgreSQL shadows of earlier versions have. */
export const SystemColumns = {
  ...WarehouseSystemColumns,
  /** No longer written: the seed stamp of shadows created by earlier versions (see startSeedShadow). */
  seedId: 'svc_sys_seed_id',
} as const;

/** Names a source column cannot have: the load table and warehouse tables use them. */
const RESERVED_COLUMNS: ReadonlySet<string> = new Set([CHANGE_OPERATION_COLUMN, ...Object.values(SystemColumns)]);

/** Everything the DDL and merge SQL need to know about one warehouse table. */
export interface TableLayout extends WarehouseLayout {
  /** `"schema"."target"`, `"schema"."shadow"` */
  qualifiedTarget: string;
  qualifiedShadow: string;
  currentKeyIndex: string;
  /** The source's columns under their warehouse names (see `warehouseColumns`). */
  columns: ColumnDefinition[];
  /** The source name of each column whose warehouse name is not it. */
  sourceNames: ReadonlyMap<string, string>;
}

export function tableLayout(definition: TableDefinition, options: WarehouseTableOptions, bareNameSchemas: ReadonlySet<string>): TableLayout {
  const reserved = definition.columns.find((column) => RESERVED_COLUMNS.has(column.name));
  if (reserved !== undefined) throw new Error(`column "${reserved.name}" of ${definition.table.schema}.${definition.table.name} uses a name the service reserves`);
  const target = targetTableName(definition.table, bareNameSchemas);
  const shadow = shadowTableName(target);
  const fitted = warehouseColumns(definition);
  return {
    table: definition.table,
    schema: options.schema,
    target,
    shadow,
    qualifiedTarget: qualifiedName(options.schema, target),
    qualifiedShadow: qualifiedName(options.schema, shadow),
    currentKeyIndex: currentKeyIndexName(target),
    history: historyOf(definition, options),
    columns: definition.columns.map((column) => ({ ...column, name: fitted.nameOf(column.name) })),
    keyColumns: definition.primaryKey.map((name) => fitted.nameOf(name)),
    sourceNames: fitted.sourceNames,
    addUpdateTimestamp: options.addUpdateTimestamp,
  };
}

function historyOf(definition: TableDefinition, options: WarehouseTableOptions): TableHistory {
  if (!hasPrimaryKey(definition)) return 'plain';
  switch (options.scdType) {
    case 'Type1':
      return 'type1';
    case 'Type2':
      return 'type2';
  }
}

/**
 * PostgreSQL keeps 63 bytes of a name and cuts the rest, and SQL Server's column names run to 128 characters: a longer
 * name would make two columns one, or an ADD COLUMN that finds the cut name "already exists" on every retry. So a
 * longer name becomes a deterministic fitted one (a prefix and a hash of the whole name, `fitIdentifier`), and two
 * columns that would still share a name stop the table, naming both.
 */
function warehouseColumns(definition: TableDefinition): { nameOf: (source: string) => string; sourceNames: ReadonlyMap<string, string> } {
  const sourceNames = new Map<string, string>();
  const owners = new Map<string, string>();
  for (const { name } of definition.columns) {
    const warehouseName = fitIdentifier(name);
    const owner = owners.get(warehouseName);
    if (owner !== undefined) {
      throw new Error(
        `columns "${owner}" and "${name}" of ${definition.table.schema}.${definition.table.name} would both be named "${warehouseName}" in the warehouse, whose names are at most 63 bytes; rename one at the source`,
      );
    }
    owners.set(warehouseName, name);
    if (warehouseName !== name) sourceNames.set(warehouseName, name);
  }
  return { nameOf: (source) => fitIdentifier(source), sourceNames };
}
