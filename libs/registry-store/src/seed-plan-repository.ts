import type { Pool } from 'pg';
import { RELEASE } from './pipeline-state-repository';

/** How a chunked seed of a table is cut, as the registry keeps it until the seed completes or is given up. */
export interface SeedPlan {
  seedId: string;
  /** The capture horizon every chunk's snapshot was opened after: the close applies the changes from it. */
  startVersion: string;
  sourceIncarnation: string | null;
  keyColumns: string[];
  /** Inner key bounds in key order: chunk i is [bounds[i-1], bounds[i]), the first and last unbounded below and above. */
  bounds: string[][];
  chunkCount: number;
}

/** A table's kept plan and the chunks of it the warehouse has. */
export interface SeedPlanState {
  plan: SeedPlan;
  loaded: ReadonlySet<number>;
}

/** The work a chunk report is about: only the table's work in flight, at its epoch, records chunks. */
export interface ChunkWork {
  workId: string;
  epoch: number;
}

/** What a chunk's report did. */
export type ChunkRecorded = 'ignored' | 'recorded' | 'complete';

interface PlanRow {
  seed_id: string;
  start_version: string;
  source_incarnation: string | null;
  key_columns: string[];
  bounds: string[][];
  chunk_count: number;
}

/**
 * Chunked seeds' plans and the chunks loaded (migration 17). A plan outlives the unit of work that made it: a seed
 * whose work is released (a worker died, a failure, a restart) resumes with the same plan, and only its chunks not
 * loaded are read again. It goes when the seed completes or the table must be seeded anew (PipelineStateRepository
 * deletes it in the same statement as the phase change).
 */
export class SeedPlanRepository {
  constructor(private readonly pool: Pool) {}

  async planOf(replicationId: string, tableName: string): Promise<SeedPlanState | null> {
    const plans = await this.pool.query<PlanRow>(
      'SELECT seed_id, start_version, source_incarnation, key_columns, bounds, chunk_count FROM seed_plans WHERE replication_id = $1 AND table_name = $2',
      [replicationId, tableName],
    );
    const row = plans.rows[0];
    if (row === undefined) return null;
    const chunks = await this.pool.query<{ chunk: number }>('SELECT chunk FROM seed_chunks WHERE replication_id = $1 AND table_name = $2 AND seed_id = $3', [
      replicationId,
      tableName,
      row.seed_id,
    ]);
    return { plan: planOf(row), loaded: new Set(chunks.rows.map((chunk) => chunk.chunk)) };
  }

  /**
   * Keeps `proposal` as the table's plan unless one is kept already, and only while `work` is the table's work in flight
   * at its epoch; the plan kept then (this one or the earlier), or null when the work is no longer in flight.
   */
  async keep(replicationId: string, tableName: string, work: ChunkWork, proposal: SeedPlan): Promise<SeedPlan | null> {
    const result = await this.pool.query<PlanRow>(
      `WITH live AS (
         SELECT 1 FROM table_states WHERE replication_id = $1 AND table_name = $2 AND in_flight_work_id = $3 AND work_epoch = $4
       ), kept AS (
         INSERT INTO seed_plans (replication_id, table_name, seed_id, start_version, source_incarnation, key_columns, bounds, chunk_count)
         SELECT $1, $2, $5, $6, $7, $8, $9::jsonb, $10 FROM live
         ON CONFLICT (replication_id, table_name) DO NOTHING
         RETURNING seed_id, start_version, source_incarnation, key_columns, bounds, chunk_count
       )
       SELECT * FROM kept
       UNION ALL
       SELECT p.seed_id, p.start_version, p.source_incarnation, p.key_columns, p.bounds, p.chunk_count
         FROM seed_plans AS p, live WHERE p.replication_id = $1 AND p.table_name = $2 AND NOT EXISTS (SELECT 1 FROM kept)`,
      [
        replicationId,
        tableName,
        work.workId,
        work.epoch,
        proposal.seedId,
        proposal.startVersion,
        proposal.sourceIncarnation,
        proposal.keyColumns,
        JSON.stringify(proposal.bounds),
        proposal.chunkCount,
      ],
    );
    const row = result.rows[0];
    return row === undefined ? null : planOf(row);
  }

  /** Forgets the table's plan (and its chunks): the next seed plans anew. */
  async drop(replicationId: string, tableName: string): Promise<void> {
    await this.pool.query('DELETE FROM seed_plans WHERE replication_id = $1 AND table_name = $2', [replicationId, tableName]);
  }

  /**
   * A chunk of the table's plan is in the warehouse. Recorded only for the work in flight at its epoch and the plan's
   * seed; once every chunk is, the work is released (`complete`): the scheduler's next pass gives the table its close.
   */
  async chunkLoaded(replicationId: string, tableName: string, work: ChunkWork, seedId: string, chunk: number, rows: number, now: Date): Promise<ChunkRecorded> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const live = await client.query<{ chunk_count: number }>(
        `SELECT p.chunk_count FROM table_states AS t JOIN seed_plans AS p USING (replication_id, table_name)
          WHERE t.replication_id = $1 AND t.table_name = $2 AND t.in_flight_work_id = $3 AND t.work_epoch = $4 AND p.seed_id = $5
          FOR UPDATE OF t`,
        [replicationId, tableName, work.workId, work.epoch, seedId],
      );
      const chunkCount = live.rows[0]?.chunk_count;
      if (chunkCount === undefined || chunk >= chunkCount) {
        await client.query('ROLLBACK');
        return 'ignored';
      }
      await client.query(
        `INSERT INTO seed_chunks (replication_id, table_name, seed_id, chunk, row_count, loaded_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT DO NOTHING`,
        [replicationId, tableName, seedId, chunk, rows, now],
      );
      const loaded = await client.query<{ loaded: string }>('SELECT count(*) AS loaded FROM seed_chunks WHERE replication_id = $1 AND table_name = $2 AND seed_id = $3', [
        replicationId,
        tableName,
        seedId,
      ]);
      const complete = Number(loaded.rows[0]?.loaded ?? 0) >= chunkCount;
      await client.query(
        `UPDATE table_states SET updated_at = $3, last_progress_at = $3, rows_seeded = rows_seeded + $4${complete ? `, ${RELEASE}` : ''}
          WHERE replication_id = $1 AND table_name = $2`,
        [replicationId, tableName, now, rows],
      );
      await client.query('COMMIT');
      return complete ? 'complete' : 'recorded';
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}

function planOf(row: PlanRow): SeedPlan {
  return {
    seedId: row.seed_id,
    startVersion: row.start_version,
    sourceIncarnation: row.source_incarnation,
    keyColumns: row.key_columns,
    bounds: row.bounds,
    chunkCount: row.chunk_count,
  };
}
