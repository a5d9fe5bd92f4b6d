import type { TableRuntimeState } from '@svc/registry-store';
import type { WorkOrder } from './work-planner';

/** Which change cycles may travel together (WORK_GROUP_TABLES, WORK_GROUP_MAX_ROWS). */
export interface GroupingSettings {
  /** Tables in one group at most; 1: every table alone. */
  maxTables: number;
  /** A table whose last change cycle moved more rows than this goes alone. */
  maxRows: number;
}

/**
 * The pass's orders as units of work: the change cycles of one replication's small tables in groups of up to
 * `maxTables` (docs/PIPELINE.md, "Many small tables in one unit"), everything else alone — seeds and a seed's close,
 * a table whose last cycle moved more than `maxRows` rows (its backlog may take several batches), and one that failed
 * last time (alone, its retries and reports stay its own). Alone first, in their planned order; then the groups.
 */
export function workUnits(orders: readonly WorkOrder[], tableOf: (order: WorkOrder) => TableRuntimeState | undefined, settings: GroupingSettings): WorkOrder[][] {
  const alone: WorkOrder[][] = [];
  const groupable = new Map<string, WorkOrder[]>();
  for (const order of orders) {
    const table = tableOf(order);
    if (settings.maxTables <= 1 || !mayTravelTogether(order, table, settings.maxRows)) {
      alone.push([order]);
      continue;
    }
    const own = groupable.get(order.replicationId) ?? [];
    own.push(order);
    groupable.set(order.replicationId, own);
  }
  const groups: WorkOrder[][] = [];
  for (const own of groupable.values()) {
    for (let start = 0; start < own.length; start += settings.maxTables) groups.push(own.slice(start, start + settings.maxTables));
  }
  return [...alone, ...groups];
}

/** A change cycle of a small table that did not fail last time: it may travel in a group. */
export function mayTravelTogether(order: WorkOrder, table: TableRuntimeState | undefined, maxRows: number): boolean {
  return order.kind === 'changes' && order.seedClose === undefined && table !== undefined && table.lastCycleRows <= maxRows && table.failureCount === 0;
}
