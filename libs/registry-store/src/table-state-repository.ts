import type { Pool } from 'pg';
import type { TablePhase, TableStatus } from '@svc/contracts';
import { isUuid } from '@svc/contracts';

/** A table's state as stored; the timeout level becomes minutes with the replication's configuration. */
export interface StoredTableStatus extends TableStatus {
  ctTimeoutLevel: number;
}

/**
 * What the API reads of table states. It writes none: a phase moves only through the pipeline's guarded
 * transitions (PipelineStateRepository, from the table phase machine of @svc/contracts).
 */
export interface TableStateStore {
  listByReplication(replicationId: string): Promise<StoredTableStatus[]>;
  /** Every replication's tables, by replication id (monitoring). */
  listAll(): Promise<Map<string, StoredTableStatus[]>>;
  /** How many tables each replication has, and how many of them are in Error. */
  errorCounts(): Promise<Map<string, TableErrorCount>>;
}

export interface TableErrorCount {
  tableCount: number;
  tablesInError: number;
}

const TABLE_STATE_COLUMNS = `replication_id, table_name, phase, rows_seeded, rows_estimated, last_version, lag_seconds, last_error, last_error_detail, last_cycle_at, retry_at,
  ct_timeout_level, in_flight_since, last_progress_at,
  (SELECT p.chunk_count FROM seed_plans AS p WHERE p.replication_id = table_states.replication_id AND p.table_name = table_states.table_name) AS seed_chunks,
  (SELECT count(*) FROM seed_plans AS p JOIN seed_chunks AS c USING (replication_id, table_name, seed_id)
    WHERE p.replication_id = table_states.replication_id AND p.table_name = table_states.table_name) AS seed_chunks_loaded`;

interface TableStateRow {
  replication_id: string;
  table_name: string;
  phase: TablePhase;
  rows_seeded: string;
  rows_estimated: string;
  last_version: string | null;
  lag_seconds: number | null;
  last_error: string | null;
  last_error_detail: string | null;
  last_cycle_at: Date | null;
  retry_at: Date | null;
  ct_timeout_level: number;
  in_flight_since: Date | null;
  last_progress_at: Date | null;
  seed_chunks: number | null;
  seed_chunks_loaded: string;
}

export class TableStateRepository implements TableStateStore {
  constructor(private readonly pool: Pool) {}

  async listByReplication(replicationId: string): Promise<StoredTableStatus[]> {
    if (!isUuid(replicationId)) return [];
    const result = await this.pool.query<TableStateRow>(`SELECT ${TABLE_STATE_COLUMNS} FROM table_states WHERE replication_id = $1 ORDER BY table_name`, [replicationId]);
    return result.rows.map(toStoredStatus);
  }

  async listAll(): Promise<Map<string, StoredTableStatus[]>> {
    const result = await this.pool.query<TableStateRow>(`SELECT ${TABLE_STATE_COLUMNS} FROM table_states ORDER BY replication_id, table_name`);
    const byReplication = new Map<string, StoredTableStatus[]>();
    for (const row of result.rows) {
      const tables = byReplication.get(row.replication_id) ?? [];
      tables.push(toStoredStatus(row));
      byReplication.set(row.replication_id, tables);
    }
    return byReplication;
  }

  async errorCounts(): Promise<Map<string, TableErrorCount>> {
    const result = await this.pool.query<{ replication_id: string; table_count: number; tables_in_error: number }>(
      `SELECT replication_id, count(*)::int AS table_count, (count(*) FILTER (WHERE phase = 'Error'))::int AS tables_in_error FROM table_states GROUP BY replication_id`,
    );
    return new Map(result.rows.map((row) => [row.replication_id, { tableCount: row.table_count, tablesInError: row.tables_in_error }]));
  }
}

function toStoredStatus(row: TableStateRow): StoredTableStatus {
  return {
    name: row.table_name,
    phase: row.phase,
    // bigint arrives as text; row counts stay far below 2^53.
    rowsSeeded: Number(row.rows_seeded),
    rowsEstimated: Number(row.rows_estimated),
    ...(row.seed_chunks !== null && { seedChunks: row.seed_chunks, seedChunksLoaded: Number(row.seed_chunks_loaded) }),
    lastVersion: row.last_version,
    lagSeconds: row.lag_seconds,
    lastError: row.last_error,
    lastErrorDetail: row.last_error_detail,
    lastCycleAt: row.last_cycle_at?.toISOString() ?? null,
    nextAttemptAt: row.retry_at?.toISOString() ?? null,
    ctTimeoutLevel: row.ct_timeout_level,
    workStartedAt: row.in_flight_since?.toISOString() ?? null,
    lastProgressAt: row.last_progress_at?.toISOString() ?? null,
  };
}
