import type { Pool } from 'pg';
import type { MetricsPoint, TableMetricsHistory } from '@svc/contracts';

/** What one loaded batch adds to its table's minute. */
export interface MetricSample {
  replicationId: string;
  tableName: string;
  at: Date;
  rowsApplied: number;
  /** Present for a change cycle; a seed part only adds rows. */
  cycle?: { lagSeconds: number; durationMs: number | null };
}

export interface HistoryQuery {
  replicationId: string;
  tableName?: string;
  since: Date;
  stepMinutes: number;
}

export interface MetricsHistoryStore {
  record(sample: MetricSample): Promise<void>;
  /** Each table's points from `since`, one per `stepMinutes` interval with activity, oldest first. */
  history(query: HistoryQuery): Promise<TableMetricsHistory[]>;
  /** Drops samples of minutes before `before`; answers how many. */
  prune(before: Date): Promise<number>;
}

interface PointRow {
  table_name: string;
  at: Date;
  cycles: number;
  rows_applied: string;
  lag_last: number | null;
  lag_max: number | null;
  cycle_ms_total: string;
  timed_cycles: number;
  cycle_ms_max: string | null;
}

/** One row per table and minute, summed into as batches load: a bounded history whatever the cycle rate. */
export class MetricsHistoryRepository implements MetricsHistoryStore {
  constructor(private readonly pool: Pool) {}

  async record(sample: MetricSample): Promise<void> {
    const { cycle } = sample;
    const timed = cycle?.durationMs !== undefined && cycle.durationMs !== null;
    await this.pool.query(
      `INSERT INTO table_metric_samples AS s
         (replication_id, table_name, minute, cycles, rows_applied, lag_seconds_last, lag_seconds_max, cycle_ms_total, timed_cycles, cycle_ms_max)
       VALUES ($1, $2, date_trunc('minute', $3::timestamptz), $4, $5, $6, $6, $7, $8, $9)
       ON CONFLICT (replication_id, table_name, minute) DO UPDATE SET
         cycles = s.cycles + EXCLUDED.cycles,
         rows_applied = s.rows_applied + EXCLUDED.rows_applied,
         lag_seconds_last = COALESCE(EXCLUDED.lag_seconds_last, s.lag_seconds_last),
         lag_seconds_max = GREATEST(s.lag_seconds_max, EXCLUDED.lag_seconds_max),
         cycle_ms_total = s.cycle_ms_total + EXCLUDED.cycle_ms_total,
         timed_cycles = s.timed_cycles + EXCLUDED.timed_cycles,
         cycle_ms_max = GREATEST(s.cycle_ms_max, EXCLUDED.cycle_ms_max)`,
      [
        sample.replicationId,
        sample.tableName,
        sample.at,
        cycle ? 1 : 0,
        sample.rowsApplied,
        cycle ? cycle.lagSeconds : null,
        timed ? Math.round(cycle.durationMs ?? 0) : 0,
        timed ? 1 : 0,
        timed ? Math.round(cycle.durationMs ?? 0) : null,
      ],
    );
  }

  async history(query: HistoryQuery): Promise<TableMetricsHistory[]> {
    const stepSeconds = query.stepMinutes * 60;
    // Intervals are aligned on multiples of the step since the epoch, so a chart polled again keeps its points.
    const result = await this.pool.query<PointRow>(
      `SELECT table_name,
              to_timestamp(floor(extract(epoch FROM minute) / $4) * $4) AS at,
              sum(cycles)::int AS cycles,
              sum(rows_applied)::text AS rows_applied,
              (array_agg(lag_seconds_last ORDER BY minute DESC) FILTER (WHERE lag_seconds_last IS NOT NULL))[1] AS lag_last,
              max(lag_seconds_max) AS lag_max,
              sum(cycle_ms_total)::text AS cycle_ms_total,
              sum(timed_cycles)::int AS timed_cycles,
              max(cycle_ms_max)::text AS cycle_ms_max
         FROM table_metric_samples
        WHERE replication_id = $1 AND minute >= $2 AND ($3::text IS NULL OR table_name = $3)
        GROUP BY 1, 2
        ORDER BY 1, 2`,
      [query.replicationId, query.since, query.tableName ?? null, stepSeconds],
    );
    const tables = new Map<string, MetricsPoint[]>();
    for (const row of result.rows) {
      const points = tables.get(row.table_name) ?? [];
      points.push(toPoint(row));
      tables.set(row.table_name, points);
    }
    return [...tables].map(([name, points]) => ({ name, points }));
  }

  async prune(before: Date): Promise<number> {
    const result = await this.pool.query('DELETE FROM table_metric_samples WHERE minute < $1', [before]);
    return result.rowCount ?? 0;
  }
}

function toPoint(row: PointRow): MetricsPoint {
  return {
    at: row.at.toISOString(),
    cycles: row.cycles,
    rowsApplied: Number(row.rows_applied),
    lagSeconds: row.lag_last,
    maxLagSeconds: row.lag_max,
    avgCycleMs: row.timed_cycles > 0 ? Math.round(Number(row.cycle_ms_total) / row.timed_cycles) : null,
    maxCycleMs: row.cycle_ms_max === null ? null : Number(row.cycle_ms_max),
  };
}
