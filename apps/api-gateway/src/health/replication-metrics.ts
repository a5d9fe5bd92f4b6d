import { REPLICATION_STATUSES, TABLE_PHASES, type RegistryMetricsReply, type TableMetrics } from '@svc/contracts';
import { Gauge, Registry } from 'prom-client';

interface TableSeries {
  table: TableMetrics;
  key: { replication_id: string; table: string };
}

function secondsSinceEpoch(isoTime: string): number {
  return Date.parse(isoTime) / 1000;
}

/**
 * The registry's view of every replication, as gauges in a registry of their own made for one scrape from
 * one snapshot, so that a replication or table that is gone leaves no stale series and two scrapes cannot
 * mix their snapshots. `snapshot` is null when the registry did not answer: then only `svc_registry_up 0` is
 * said, never stale or invented numbers. Status and phase are one series per possible value (1 for the
 * current one, 0 otherwise), so that alerting rules can match on `== 1` and series do not vanish when a
 * value changes.
 */
export function replicationMetricsRegistry(snapshot: RegistryMetricsReply | null): Registry {
  const registry = new Registry();
  const gauge = <Label extends string>(name: string, help: string, labelNames: readonly Label[] = []): Gauge<Label> =>
    new Gauge({ name, help, labelNames, registers: [registry] });

  gauge('svc_registry_up', '1 when the job registry answered the metrics request, else 0.').set(snapshot ? 1 : 0);
  if (!snapshot) return registry;

  const status = gauge('svc_replication_status', 'Replication status: 1 for the current status, 0 for the others.', ['replication_id', 'replication_name', 'status']);
  for (const replication of snapshot.replications) {
    for (const value of REPLICATION_STATUSES) {
      status.set({ replication_id: replication.replicationId, replication_name: replication.replicationName, status: value }, replication.status === value ? 1 : 0);
    }
  }

  const walHeld = gauge(
    'svc_source_wal_held_bytes',
    "Bytes of WAL the replication's source keeps for its replication slot (PostgreSQL log capture; absent without one): alert before it fills the source's disk.",
    ['replication_id'],
  );
  for (const replication of snapshot.replications) {
    if (replication.sourceWalHeldBytes != null) walHeld.set({ replication_id: replication.replicationId }, replication.sourceWalHeldBytes);
  }

  const tables: TableSeries[] = snapshot.replications.flatMap((replication) =>
    replication.tables.map((table) => ({ table, key: { replication_id: replication.replicationId, table: table.name } })),
  );
  const tableLabels = ['replication_id', 'table'] as const;
  const phase = gauge('svc_table_phase', 'Table phase: 1 for the current phase, 0 for the others.', [...tableLabels, 'phase']);
  for (const { table, key } of tables) {
    for (const value of TABLE_PHASES) phase.set({ ...key, phase: value }, table.phase === value ? 1 : 0);
  }
  const lag = gauge('svc_table_lag_seconds', 'Seconds from extraction to the warehouse of the last loaded cycle.', tableLabels);
  for (const { table, key } of tables) if (table.lagSeconds !== null) lag.set(key, table.lagSeconds);
  const lastCycle = gauge('svc_table_last_cycle_timestamp_seconds', 'Unix time at which the last unit of work of the table ended.', tableLabels);
  for (const { table, key } of tables) if (table.lastCycleAt !== null) lastCycle.set(key, secondsSinceEpoch(table.lastCycleAt));
  const inFlight = gauge(
    'svc_table_work_in_flight_seconds',
    'Seconds the work in flight of the table has been running since it was claimed (absent when idle).',
    tableLabels,
  );
  for (const { table, key } of tables) if (table.inFlightSeconds !== null) inFlight.set(key, table.inFlightSeconds);
  const lastProgress = gauge(
    'svc_table_last_progress_timestamp_seconds',
    "Unix time of the last sign of progress of the table's work: a worker's heartbeat, a part or batch loaded, or its claim.",
    tableLabels,
  );
  for (const { table, key } of tables) if (table.lastProgressAt !== null) lastProgress.set(key, secondsSinceEpoch(table.lastProgressAt));
  const rowsSeeded = gauge('svc_table_rows_seeded', 'Rows loaded by the last seed of the table.', tableLabels);
  for (const { table, key } of tables) rowsSeeded.set(key, table.rowsSeeded);
  const failing = gauge('svc_table_failing', '1 while the table has an error on record, else 0.', tableLabels);
  for (const { table, key } of tables) failing.set(key, table.failing ? 1 : 0);

  const mismatched = gauge(
    'svc_table_validation_mismatched_keys',
    "Keys that differed between the warehouse and the source in the table's last validation (0 once Validated or Repaired; absent before any).",
    tableLabels,
  );
  for (const { table, key } of tables) if (table.lastValidation) mismatched.set(key, table.lastValidation.state === 'Mismatched' ? table.lastValidation.mismatchedKeys : 0);
  const validatedAt = gauge('svc_table_last_validation_timestamp_seconds', "Unix time at which the table's last validation ended.", tableLabels);
  for (const { table, key } of tables) if (table.lastValidation) validatedAt.set(key, secondsSinceEpoch(table.lastValidation.endedAt));

  // Active only (neither acknowledged nor resolved): a rule on it stops firing once the condition ends or someone has seen it.
  const alerts = gauge('svc_alerts', 'Active alerts (neither acknowledged nor resolved), by replication and kind.', ['replication_id', 'kind']);
  for (const { replicationId, kind, count } of snapshot.activeAlerts) alerts.set({ replication_id: replicationId, kind }, count);
  const deliveries = gauge(
    'svc_alert_deliveries',
    'Alert deliveries by target and state: Pending (waiting or retrying), Delivered, Failed (refused, or given up after ALERT_GIVE_UP_HOURS).',
    ['target', 'type', 'state'],
  );
  for (const { target, type, state, count } of snapshot.alertDeliveries ?? []) deliveries.set({ target, type, state }, count);
  return registry;
}
