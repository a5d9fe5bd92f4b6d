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

/** A keyed table whose history columns say another ScdType than the replication's. */
export function scdTypeChanged(history: TableHistory, hasColumn: (name: string) => boolean): boolean {
  if (history === 'plain') return false;
  return hasColumn(SystemColumns.validFrom) !== (history === 'type2');
}

/** The name a table of the previous ScdType is set aside under: `<table>_<type>_<UTC timestamp>`, before fitting. */
export function setAsideName(target: string, hasColumn: (name: string) => boolean, now: Date = new Date()): string {
  const previous = hasColumn(SystemColumns.validFrom) ? 'type2' : 'type1';
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '_').slice(0, 15);
  return `${target}_${previous}_${stamp}`;
}
