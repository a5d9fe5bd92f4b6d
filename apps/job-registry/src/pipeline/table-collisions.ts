import { parseTableKey, warehouseTableName, type ListedTable, type ReplicationConfig } from '@svc/contracts';
import { DEFAULT_SCHEMAS } from '@svc/connectors';
import type { DiscoveredTable } from '@svc/registry-store';
import { selectTables } from './table-selection';

/**
 * Field errors for tables the replication would move into one warehouse table (DESIGN §6): `[sales].[orders]`
 * and `[public].[sales_orders]` both become `sales_orders`. Names are compared case-insensitively, since
 * Redshift folds identifiers to lower case.
 */
export function warehouseNameCollisions(config: Pick<ReplicationConfig, 'tablesToInclude' | 'reseedingSchedule'>, tables: ListedTable[]): string[] {
  return [...byWarehouseTable(selectTables(config, tables)).entries()]
    .filter(([, group]) => group.length > 1)
    .map(
      ([target, group]) =>
        `{TablesToInclude}: tables ${group.map((table) => table.tableName).join(', ')} would all be loaded into warehouse table ${target}: leave all but one of them out`,
    );
}

/** Selected tables by the (lower-cased) warehouse table they would be loaded into, in selection order. */
function byWarehouseTable(selected: DiscoveredTable[]): Map<string, DiscoveredTable[]> {
  const groups = new Map<string, DiscoveredTable[]>();
  for (const table of selected) {
    const ref = parseTableKey(table.tableName);
    const target = (ref ? warehouseTableName(ref, DEFAULT_SCHEMAS) : table.tableName).toLowerCase();
    groups.set(target, [...(groups.get(target) ?? []), table]);
  }
  return groups;
}

/** Tables discovery would add but must not: each shares a warehouse table with another selected one. */
export interface RefusedTable {
  tableName: string;
  reason: string;
}

/**
 * For discovery, when a table appears in the source after Create (TablesToInclude All): of the selected
 * tables that would share a warehouse table, those already replicated stay and the newcomers are refused;
 * when none of them is replicated yet, all are refused, since none has a better claim.
 */
export function admitWithoutCollisions(selected: DiscoveredTable[], knownTableNames: readonly string[]): { admitted: DiscoveredTable[]; refused: RefusedTable[] } {
  const known = new Set(knownTableNames.map((name) => name.toLowerCase()));
  const admitted: DiscoveredTable[] = [];
  const refused: RefusedTable[] = [];
  for (const [target, group] of byWarehouseTable(selected)) {
    if (group.length === 1) {
      admitted.push(...group);
      continue;
    }
    const names = group.map((table) => table.tableName);
    for (const table of group) {
      if (known.has(table.tableName.toLowerCase())) admitted.push(table);
      else refused.push({ tableName: table.tableName, reason: `${table.tableName} is not replicated: ${names.join(', ')} would all be loaded into warehouse table ${target}` });
    }
  }
  return { admitted, refused };
}
