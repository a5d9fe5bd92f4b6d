import type { SeedClose } from '@svc/contracts';
import type { SchedulableReplication, TableRuntimeState, WorkKind } from '@svc/registry-store';
import type { ChangeVerdict } from './change-probes';
import { withinDailyWindow } from './daily-window';
import { isScheduledForReseed } from './table-selection';
import { mayTravelTogether, type GroupingSettings } from './work-units';

export interface WorkOrder {
  replicationId: string;
  tableName: string;
  kind: WorkKind;
  /** Whether the table is tracked (a seed installs change tracking first). */
  track: boolean;
  fromVersion?: string;
  /** Changes: the source incarnation stored with the watermark (absent when unknown). */
  fromIncarnation?: string;
  batchLimit: number;
  /** Seed: the close of a chunked seed whose chunks are all loaded. */
  seedClose?: SeedClose;
  /** The configuration version the order was planned under (workers use no older one). */
  configVersion: number;
}

export interface PlanningSettings {
  /** After a cycle that found nothing, wait this long before asking an idle source again (when no probe has answered). */
  idleCycleDelayMs: number;
  /**
   * What the source's change probe (ChangeProbes) last said of a table at its current watermark: `changed` gets
   * it a cycle at once, `unchanged` none until idleRecheckMs has passed, `pending` waits for the next probe up to
   * pendingProbeMs; null (the probes do not answer) leaves it to idleCycleDelayMs.
   */
  changeVerdict?: (table: TableRuntimeState) => ChangeVerdict | null;
  /** An idle table the probe finds unchanged still gets a cycle this often: its watermark moves, problems surface. */
  idleRecheckMs?: number;
  /** How long a table whose probe verdict is `pending` waits for the next probe before it gets a cycle anyway. */
  pendingProbeMs?: number;
  /** Length of the "minute" of RepeatIntervalInMinutes settings: 60000, shorter only in tests and demos. */
  minuteMs: number;
  /**
   * Which change cycles travel together (workUnits). A group counts as one against ParallelTablesLimit: its members are
   * read one after the other, one table at a time on the source, the load the limit is there to bound.
   */
  grouping?: GroupingSettings;
}

/** Tables of a run that may still get work: those in flight (they hold capacity) and those not served since it started. */
export function unservedTables(tables: TableRuntimeState[], runStartedAt: Date | null): TableRuntimeState[] {
  if (runStartedAt === null) return tables;
  return tables.filter((table) => table.inFlightWorkId !== null || table.lastCycleAt === null || table.lastCycleAt < runStartedAt);
}

/**
 * Decides, from stored state alone, which tables get work now. Pure: the scheduler claims the orders
 * (a claim fails when another scheduler won) and publishes them.
 */
export function planWork(now: Date, replications: SchedulableReplication[], tables: TableRuntimeState[], settings: PlanningSettings): WorkOrder[] {
  const orders: WorkOrder[] = [];
  for (const replication of replications) {
    const { config } = replication;
    if (replication.status !== 'Running' || !config.dataReplication) continue;
    const own = tables.filter((table) => table.replicationId === replication.replicationId);
    const inFlight = own.filter((table) => table.inFlightWorkId !== null);
    let capacity = config.parallelTablesLimit - new Set(inFlight.map((table) => table.inFlightGroupId ?? table.inFlightWorkId)).size;
    /** Members the pass's newest group can still take: it holds one unit of capacity, whatever its size. */
    let groupRoom = 0;
    const grouping = settings.grouping !== undefined && settings.grouping.maxTables > 1 ? settings.grouping : null;
    for (const table of prioritised(own)) {
      if (capacity <= 0 && groupRoom === 0) break;
      if (table.inFlightWorkId !== null) continue;
      const order = nextOrder(now, replication, table, settings);
      if (!order) continue;
      if (grouping !== null && mayTravelTogether(order, table, grouping.maxRows)) {
        if (groupRoom === 0) {
          if (capacity <= 0) continue;
          capacity -= 1;
          groupRoom = grouping.maxTables;
        }
        groupRoom -= 1;
        orders.push(order);
      } else if (capacity > 0) {
        orders.push(order);
        capacity -= 1;
      }
    }
  }
  return orders;
}

/** Seeds first (a table nobody can query yet), then reseeds, then change cycles, least recently served first. */
function prioritised(tables: TableRuntimeState[]): TableRuntimeState[] {
  const rank = (table: TableRuntimeState) => (table.phase === 'Pending' ? 0 : table.phase === 'Reseeding' ? 1 : 2);
  return [...tables].sort((a, b) => rank(a) - rank(b) || (a.lastCycleAt?.getTime() ?? 0) - (b.lastCycleAt?.getTime() ?? 0));
}

function nextOrder(now: Date, replication: SchedulableReplication, table: TableRuntimeState, settings: PlanningSettings): WorkOrder | null {
  const { config } = replication;
  // A table whose last work failed waits out its backoff, whatever its phase.
  if (table.retryAt !== null && table.retryAt > now) return null;
  const base = {
    replicationId: replication.replicationId,
    tableName: table.tableName,
    track: table.tracked,
    batchLimit: config.changeTrackingBatchLimit,
    configVersion: replication.configVersion,
  };
  switch (table.phase) {
    case 'Pending':
    case 'Seeding':
    case 'Reseeding':
      // Seeding with nothing in flight: the seed's worker gave up or died; start the seed again (a chunked one resumes from
      // its chunks loaded), or, every chunk loaded, close it.
      return { ...base, kind: 'seed', ...seedCloseOf(table) };
    case 'Tracking':
      if (table.lastVersion === null) return { ...base, kind: 'seed' };
      if (!changeCycleDue(now, replication, table, settings)) return null;
      return { ...base, kind: 'changes', fromVersion: table.lastVersion, ...(table.lastIncarnation !== null && { fromIncarnation: table.lastIncarnation }) };
    case 'Untracked':
      return reseedDue(now, replication, table, settings) ? { ...base, kind: 'seed' } : null;
    case 'Error':
      return null;
    default: {
      const unreachable: never = table.phase;
      throw new Error(`unknown phase ${String(unreachable)}`);
    }
  }
}

/** The close of the table's chunked seed when every chunk of it is loaded. */
function seedCloseOf(table: TableRuntimeState): { seedClose?: SeedClose } {
  const plan = table.seedPlan;
  if (plan === undefined || plan === null || plan.chunksLoaded < plan.chunkCount) return {};
  return {
    seedClose: {
      seedId: plan.seedId,
      chunkCount: plan.chunkCount,
      fromVersion: plan.startVersion,
      ...(plan.sourceIncarnation !== null && { fromIncarnation: plan.sourceIncarnation }),
    },
  };
}

function changeCycleDue(now: Date, replication: SchedulableReplication, table: TableRuntimeState, settings: PlanningSettings): boolean {
  const { config } = replication;
  if (!withinDailyWindow(now, config.scheduleIntervalTimeFrom, config.scheduleIntervalTimeTo)) return false;
  const last = table.lastCycleAt?.getTime();
  if (last === undefined) return true;
  const idleFor = now.getTime() - last;
  if (!config.isContinuous) return idleFor >= (config.repeatIntervalInMinutes ?? 0) * settings.minuteMs;
  // A cycle that moved a whole batch or more left a backlog behind it: the next at once. Any other table, busy or idle,
  // is the probe's to judge: after a burst of small changes across many tables, an empty cycle for each would queue
  // ahead of the one change that matters.
  if (table.lastCycleRows >= config.changeTrackingBatchLimit) return true;
  switch (settings.changeVerdict?.(table) ?? null) {
    case 'changed':
      return true;
    case 'unchanged':
      return idleFor >= (settings.idleRecheckMs ?? settings.idleCycleDelayMs);
    // The next probe judges it: a cycle now would be an empty one for each table whose cycle just ended (after a burst,
    // hundreds of them ahead of the one change that matters). Should the probe still not judge it, the cycle comes anyway.
    case 'pending':
      return idleFor >= Math.max(settings.idleCycleDelayMs, settings.pendingProbeMs ?? 0);
    case null:
      return idleFor >= settings.idleCycleDelayMs;
  }
}

function reseedDue(now: Date, replication: SchedulableReplication, table: TableRuntimeState, settings: PlanningSettings): boolean {
  const schedule = replication.config.reseedingSchedule;
  if (!schedule || !isScheduledForReseed(replication.config, table.tableName, table.tracked)) return false;
  if (!withinDailyWindow(now, schedule.fromTime, schedule.toTime)) return false;
  const last = table.lastSeededAt?.getTime();
  return last === undefined || now.getTime() - last >= schedule.repeatIntervalInMinutes * settings.minuteMs;
}
