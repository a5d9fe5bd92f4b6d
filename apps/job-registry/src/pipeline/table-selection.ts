import { hasPrimaryKey, tableKey, type ListedTable, type ReplicationConfig, type TableSelection } from '@svc/contracts';
import type { DiscoveredTable } from '@svc/registry-store';

function includes(selection: TableSelection | undefined, key: string): boolean {
  if (selection === undefined) return false;
  return selection === 'All' || selection.some((name) => name.toLowerCase() === key.toLowerCase());
}

/**
 * Which source tables a replication moves, and which of them it tracks (seed §2.1):
 * - TablesToInclude (or All): tracked when they have a primary key, else seeded only;
 * - ReseedingSchedule.NoPkTablesToInclude: tables without a key, seeded (and reseeded on the schedule);
 * - ReseedingSchedule.PkTablesToInclude: tables with a key NOT in TablesToInclude, reseeded on the schedule, never tracked.
 */
export function selectTables(config: Pick<ReplicationConfig, 'tablesToInclude' | 'reseedingSchedule'>, tables: ListedTable[]): DiscoveredTable[] {
  const schedule = config.reseedingSchedule;
  const selected: DiscoveredTable[] = [];
  for (const definition of tables) {
    const key = tableKey(definition.table);
    const keyed = hasPrimaryKey(definition);
    const inMain = includes(config.tablesToInclude, key);
    const inSchedule = keyed ? includes(schedule?.pkTablesToInclude, key) : includes(schedule?.noPkTablesToInclude, key);
    if (!inMain && !inSchedule) continue;
    selected.push({ tableName: key, tracked: keyed && inMain, rowsEstimated: definition.estimatedRows });
  }
  return selected;
}

/** Tables the reseeding schedule refreshes. */
export function isScheduledForReseed(config: Pick<ReplicationConfig, 'reseedingSchedule'>, tableName: string, tracked: boolean): boolean {
  const schedule = config.reseedingSchedule;
  if (!schedule || tracked) return false;
  return includes(schedule.noPkTablesToInclude, tableName) || includes(schedule.pkTablesToInclude, tableName);
}
