/** Columns the service adds to warehouse tables (DESIGN §6), on every warehouse engine. */
export const SystemColumns = {
  updateTimestamp: 'svc_sys_update_timestamp',
  validFrom: 'svc_sys_valid_from',
  validTo: 'svc_sys_valid_to',
  isCurrent: 'svc_sys_is_current',
  isDeleted: 'svc_sys_is_deleted',
  rowId: 'svc_sys_row_id',
} as const;

/**
 * How the target keeps rows: `type1` one row per key, `type2` a history per key, `plain` the rows of a
 * table without a primary key (only ever replaced as a whole by a seed, whatever the SCD type).
 */
export type TableHistory = 'type1' | 'type2' | 'plain';

/** The column names of an existing table (a Set, or a Map by name). */
export interface ColumnNames {
  has(name: string): boolean;
}

/** The names of the schema's shared control tables (an engine may keep more of its own). */
export const WarehouseControlTables = {
  loadedBatches: 'svc_sys_loaded_batches',
  tableSeeds: 'svc_sys_table_seeds',
  tableFences: 'svc_sys_table_fences',
  ownedTables: 'svc_sys_owned_tables',
} as const;

/** A keyed table whose history columns say another ScdType than the replication's. */
export function scdTypeChanged(history: TableHistory, existing: ColumnNames): boolean {
  if (history === 'plain') return false;
  return existing.has(SystemColumns.validFrom) !== (history === 'type2');
}

/**
 * The name the table of the previous ScdType is renamed to, before the engine fits it: `<table>_<type>_<UTC
 * timestamp>`; its data stays in the warehouse while a new table is created and seeded.
 */
export function setAsideName(target: string, existing: ColumnNames, now: Date = new Date()): string {
  const previous = existing.has(SystemColumns.validFrom) ? 'type2' : 'type1';
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '_').slice(0, 15);
  return `${target}_${previous}_${stamp}`;
}
