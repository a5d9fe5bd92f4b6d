import type { Pool } from 'pg';
import type { ReplicationConfig, ReplicationStatus, TablePhase } from '@svc/contracts';

/** What the scheduler needs of a replication: its settings without secrets. */
export interface SchedulableReplication {
  replicationId: string;
  status: ReplicationStatus;
  configVersion: number;
  discoveredConfigVersion: number | null;
  config: Omit<ReplicationConfig, 'source' | 'staging' | 'warehouse'>;
}

export type WorkKind = 'seed' | 'changes';

export interface TableRuntimeState {
  replicationId: string;
  tableName: string;
  phase: TablePhase;
  tracked: boolean;
  lastVersion: string | null;
  inFlightWorkId: string | null;
  inFlightKind: WorkKind | null;
  inFlightSince: Date | null;
  lastSeededAt: Date | null;
  lastCycleAt: Date | null;
  lastCycleRows: number;
}

export interface DiscoveredTable {
  tableName: string;
  tracked: boolean;
  rowsEstimated: number;
}

interface RuntimeRow {
  replication_id: string;
  table_name: string;
  phase: TablePhase;
  tracked: boolean;
  last_version: string | null;
  in_flight_work_id: string | null;
  in_flight_kind: WorkKind | null;
  in_flight_since: Date | null;
  last_seeded_at: Date | null;
  last_cycle_at: Date | null;
  last_cycle_rows: string;
}

/**
 * The pipeline's view of table state. Every transition is one conditional UPDATE keyed by the work id
 * in flight, so a late or duplicated completion can never move a table that has moved on.
 */
export class PipelineStateRepository {
  constructor(private readonly pool: Pool) {}

  async listReplications(): Promise<SchedulableReplication[]> {
    const result = await this.pool.query<{ id: string; status: ReplicationStatus; config: SchedulableReplication['config']; config_version: number; discovered_config_version: number | null }>(
      'SELECT id, status, config, config_version, discovered_config_version FROM replications ORDER BY created_at',
    );
    return result.rows.map((row) => ({
      replicationId: row.id,
      status: row.status,
      configVersion: row.config_version,
      discoveredConfigVersion: row.discovered_config_version,
      config: row.config,
    }));
  }

  async listTables(replicationIds: string[]): Promise<TableRuntimeState[]> {
    if (replicationIds.length === 0) return [];
    const result = await this.pool.query<RuntimeRow>(
      `SELECT replication_id, table_name, phase, tracked, last_version, in_flight_work_id, in_flight_kind, in_flight_since,
              last_seeded_at, last_cycle_at, last_cycle_rows
         FROM table_states WHERE replication_id = ANY($1::uuid[]) ORDER BY replication_id, table_name`,
      [replicationIds],
    );
    return result.rows.map((row) => ({
      replicationId: row.replication_id,
      tableName: row.table_name,
      phase: row.phase,
      tracked: row.tracked,
      lastVersion: row.last_version,
      inFlightWorkId: row.in_flight_work_id,
      inFlightKind: row.in_flight_kind,
      inFlightSince: row.in_flight_since,
      lastSeededAt: row.last_seeded_at,
      lastCycleAt: row.last_cycle_at,
      lastCycleRows: Number(row.last_cycle_rows),
    }));
  }

  /** Adds tables not known yet (Pending) and records which configuration version was discovered. */
  async registerTables(replicationId: string, configVersion: number, tables: DiscoveredTable[]): Promise<void> {
    await this.pool.query(
      `WITH discovered AS (
         SELECT * FROM unnest($2::text[], $3::boolean[], $4::bigint[]) AS t(table_name, tracked, rows_estimated)
       ), inserted AS (
         INSERT INTO table_states (replication_id, table_name, phase, tracked, rows_estimated)
         SELECT $1, table_name, 'Pending', tracked, rows_estimated FROM discovered
         ON CONFLICT (replication_id, table_name) DO UPDATE
           SET tracked = EXCLUDED.tracked, rows_estimated = EXCLUDED.rows_estimated, updated_at = now()
       )
       UPDATE replications SET discovered_config_version = $5 WHERE id = $1`,
      [replicationId, tables.map((t) => t.tableName), tables.map((t) => t.tracked), tables.map((t) => t.rowsEstimated), configVersion],
    );
  }

  /** Puts work in flight for a table that has none; false when another claim won. */
  async claim(replicationId: string, tableName: string, workId: string, kind: WorkKind, now: Date): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE table_states
          SET in_flight_work_id = $3, in_flight_kind = $4, in_flight_since = $5, updated_at = $5,
              phase = CASE WHEN $4 = 'changes' THEN phase
                           WHEN phase = 'Pending' THEN 'Seeding'
                           WHEN phase = 'Seeding' THEN 'Seeding'
                           ELSE 'Reseeding' END,
              rows_seeded = CASE WHEN $4 = 'seed' THEN 0 ELSE rows_seeded END
        WHERE replication_id = $1 AND table_name = $2 AND in_flight_work_id IS NULL`,
      [replicationId, tableName, workId, kind, now],
    );
    return result.rowCount === 1;
  }

  async recordSeedProgress(replicationId: string, tableName: string, workId: string, rows: number): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE table_states SET rows_seeded = rows_seeded + $4, updated_at = now()
        WHERE replication_id = $1 AND table_name = $2 AND in_flight_work_id = $3`,
      [replicationId, tableName, workId, rows],
    );
    return result.rowCount === 1;
  }

  /** The final seed part is loaded: tracked tables track from the snapshot's start version. */
  async completeSeed(replicationId: string, tableName: string, workId: string, startVersion: string, rows: number, now: Date): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE table_states
          SET phase = CASE WHEN tracked THEN 'Tracking' ELSE 'Untracked' END,
              last_version = CASE WHEN tracked THEN $4 ELSE last_version END,
              rows_seeded = rows_seeded + $5,
              rows_estimated = GREATEST(rows_estimated, rows_seeded + $5),
              in_flight_work_id = NULL, in_flight_kind = NULL, in_flight_since = NULL,
              last_seeded_at = $6, last_cycle_at = $6, last_error = NULL, lag_seconds = 0, updated_at = $6
        WHERE replication_id = $1 AND table_name = $2 AND in_flight_work_id = $3`,
      [replicationId, tableName, workId, startVersion, rows, now],
    );
    return result.rowCount === 1;
  }

  /** A change batch is in the warehouse: the watermark advances to its upper version. */
  async completeChanges(
    replicationId: string,
    tableName: string,
    workId: string,
    version: string,
    rows: number,
    lagSeconds: number,
    now: Date,
  ): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE table_states
          SET last_version = $4, last_cycle_rows = $5, lag_seconds = $6, last_cycle_at = $7, last_error = NULL,
              in_flight_work_id = NULL, in_flight_kind = NULL, in_flight_since = NULL, updated_at = $7
        WHERE replication_id = $1 AND table_name = $2 AND in_flight_work_id = $3`,
      [replicationId, tableName, workId, version, rows, lagSeconds, now],
    );
    return result.rowCount === 1;
  }

  /** Work failed: the table is released; `phase` says where it goes (Reseeding, Error, or unchanged when null). */
  async failWork(replicationId: string, tableName: string, workId: string, message: string, phase: TablePhase | null, now: Date): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE table_states
          SET last_error = $4, phase = COALESCE($5, phase), last_cycle_at = $6,
              in_flight_work_id = NULL, in_flight_kind = NULL, in_flight_since = NULL, updated_at = $6
        WHERE replication_id = $1 AND table_name = $2 AND in_flight_work_id = $3`,
      [replicationId, tableName, workId, message, phase, now],
    );
    return result.rowCount === 1;
  }

  /** Releases work in flight since before `cutoff` (its worker died and redelivery gave up); returns the tables released. */
  async releaseStale(cutoff: Date): Promise<{ replicationId: string; tableName: string }[]> {
    const result = await this.pool.query<{ replication_id: string; table_name: string }>(
      `UPDATE table_states
          SET in_flight_work_id = NULL, in_flight_kind = NULL, in_flight_since = NULL,
              last_error = 'work did not finish in time; retried', updated_at = now()
        WHERE in_flight_since < $1
        RETURNING replication_id, table_name`,
      [cutoff],
    );
    return result.rows.map((row) => ({ replicationId: row.replication_id, tableName: row.table_name }));
  }
}
