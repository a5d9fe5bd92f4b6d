import { REPLICATION_STATUSES, TABLE_PHASES, type RegistryMetricsReply } from '@svc/contracts';

/** A Prometheus label value: backslash, double quote and newline escaped. */
export function labelValue(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function labels(pairs: Record<string, string>): string {
  return `{${Object.entries(pairs)
    .map(([name, value]) => `${name}="${labelValue(value)}"`)
    .join(',')}}`;
}

function family(lines: string[], name: string, type: 'gauge' | 'counter', help: string): void {
  lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
}

/**
 * The registry's view of every replication in Prometheus text format. `snapshot` is null when the
 * registry did not answer: then only `svc_registry_up 0` is said, never stale or invented numbers.
 * Status and phase are one series per possible value (1 for the current one, 0 otherwise), so that
 * alerting rules can match on `== 1` and series do not vanish when a value changes.
 */
export function renderReplicationMetrics(snapshot: RegistryMetricsReply | null): string {
  const lines: string[] = [];
  family(lines, 'svc_registry_up', 'gauge', '1 when the job registry answered the metrics request, else 0.');
  lines.push(`svc_registry_up ${snapshot ? 1 : 0}`);
  if (!snapshot) return lines.join('\n') + '\n';

  family(lines, 'svc_replication_status', 'gauge', 'Replication status: 1 for the current status, 0 for the others.');
  for (const replication of snapshot.replications) {
    for (const status of REPLICATION_STATUSES) {
      const series = labels({ replication_id: replication.replicationId, replication_name: replication.replicationName, status });
      lines.push(`svc_replication_status${series} ${replication.status === status ? 1 : 0}`);
    }
  }

  const tables = snapshot.replications.flatMap((replication) =>
    replication.tables.map((table) => ({ table, key: { replication_id: replication.replicationId, table: table.name } })),
  );
  family(lines, 'svc_table_phase', 'gauge', 'Table phase: 1 for the current phase, 0 for the others.');
  for (const { table, key } of tables) {
    for (const phase of TABLE_PHASES) lines.push(`svc_table_phase${labels({ ...key, phase })} ${table.phase === phase ? 1 : 0}`);
  }
  family(lines, 'svc_table_lag_seconds', 'gauge', 'Seconds from extraction to the warehouse of the last loaded cycle.');
  for (const { table, key } of tables) if (table.lagSeconds !== null) lines.push(`svc_table_lag_seconds${labels(key)} ${table.lagSeconds}`);
  family(lines, 'svc_table_last_cycle_timestamp_seconds', 'gauge', 'Unix time at which the last unit of work of the table ended.');
  for (const { table, key } of tables) {
    if (table.lastCycleAt !== null) lines.push(`svc_table_last_cycle_timestamp_seconds${labels(key)} ${Date.parse(table.lastCycleAt) / 1000}`);
  }
  family(lines, 'svc_table_work_in_flight_seconds', 'gauge', 'Seconds the work in flight of the table has been running since it was claimed (absent when idle).');
  for (const { table, key } of tables) if (table.inFlightSeconds !== null) lines.push(`svc_table_work_in_flight_seconds${labels(key)} ${table.inFlightSeconds}`);
  family(
    lines,
    'svc_table_last_progress_timestamp_seconds',
    'gauge',
    "Unix time of the last sign of progress of the table's work: a worker's heartbeat, a part or batch loaded, or its claim.",
  );
  for (const { table, key } of tables) {
    if (table.lastProgressAt !== null) lines.push(`svc_table_last_progress_timestamp_seconds${labels(key)} ${Date.parse(table.lastProgressAt) / 1000}`);
  }
  family(lines, 'svc_table_rows_seeded', 'gauge', 'Rows loaded by the last seed of the table.');
  for (const { table, key } of tables) lines.push(`svc_table_rows_seeded${labels(key)} ${table.rowsSeeded}`);
  family(lines, 'svc_table_failing', 'gauge', '1 while the table has an error on record, else 0.');
  for (const { table, key } of tables) lines.push(`svc_table_failing${labels(key)} ${table.failing ? 1 : 0}`);

  family(lines, 'svc_alerts', 'gauge', 'Alerts on record, by kind.');
  for (const [kind, count] of Object.entries(snapshot.alertsRaised)) lines.push(`svc_alerts${labels({ kind })} ${count}`);
  return lines.join('\n') + '\n';
}
