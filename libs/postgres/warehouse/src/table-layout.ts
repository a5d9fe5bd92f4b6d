import { CHANGE_OPERATION_COLUMN, hasPrimaryKey, type ColumnDefinition, type TableDefinition, type TableRef } from '@svc/contracts';
import type { WarehouseTableOptions } from '@svc/engines';
import { qualifiedName } from './identifiers';
import { currentKeyIndexName, shadowTableName, targetTableName } from './table-names';

/** Columns the service adds to warehouse tables (DESIGN §6). */
export const SystemColumns = {
  updateTimestamp: 'svc_sys_update_timestamp',
  validFrom: 'svc_sys_valid_from',
  validTo: 'svc_sys_valid_to',
  isCurrent: 'svc_sys_is_current',
  isDeleted: 'svc_sys_is_deleted',
  rowId: 'svc_sys_row_id',
  /** No longer written: the seed stamp of shadows created by earlier versions (see startSeedShadow). */
  seedId: 'svc_sys_seed_id',
} as const;

/** Names a source column cannot have: the load table and warehouse tables use them. */
const RESERVED_COLUMNS: ReadonlySet<string> = new Set([CHANGE_OPERATION_COLUMN, ...Object.values(SystemColumns)]);

/**
 * How the target keeps rows: `type1` one row per key, `type2` a history per key, `plain` the rows of a
 * table without a primary key (only ever replaced as a whole by a seed, whatever the SCD type).
 */
export type TableHistory = 'type1' | 'type2' | 'plain';

/** Everything the DDL and merge SQL need to know about one warehouse table. */
export interface TableLayout {
  /** The source table the warehouse table replicates. */
  table: TableRef;
  schema: string;
  target: string;
  shadow: string;
  /** `"schema"."target"`, `"schema"."shadow"` */
  qualifiedTarget: string;
  qualifiedShadow: string;
  currentKeyIndex: string;
  history: TableHistory;
  columns: ColumnDefinition[];
  keyColumns: string[];
  addUpdateTimestamp: boolean;
}

export function tableLayout(definition: TableDefinition, options: WarehouseTableOptions): TableLayout {
  const reserved = definition.columns.find((column) => RESERVED_COLUMNS.has(column.name));
  if (reserved !== undefined) throw new Error(`column "${reserved.name}" of ${definition.table.schema}.${definition.table.name} uses a name the service reserves`);
  const target = targetTableName(definition.table);
  const shadow = shadowTableName(target);
  return {
    table: definition.table,
    schema: options.schema,
    target,
    shadow,
    qualifiedTarget: qualifiedName(options.schema, target),
    qualifiedShadow: qualifiedName(options.schema, shadow),
    currentKeyIndex: currentKeyIndexName(target),
    history: historyOf(definition, options),
    columns: definition.columns,
    keyColumns: definition.primaryKey,
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
