import type { Pool } from 'pg';

/** One batch of one attempt: its two halves are matched on all three. */
export interface BatchHalfKey {
  workId: string;
  batchId: string;
  epoch: number;
}

/** Halves never matched (work released, a stale batch dropped on one side) are forgotten after this. */
const UNMATCHED_KEPT_DAYS = 7;

/**
 * The two halves of a batch that staging and the warehouse apply at once (migration 18): the loader's report (its
 * BatchLoaded) and staging's commit, in whichever order they come. Each record is one upsert: when both reports arrive
 * together, PostgreSQL's ON CONFLICT DO UPDATE makes the second wait for the first's row and see it, so exactly one of
 * them finds both halves (or both do, when one is delivered again: completing a batch twice changes nothing).
 */
export class BatchHalvesRepository {
  constructor(private readonly pool: Pool) {}

  /** Records the loader's half; true when staging's is in already. */
  async loaded(key: BatchHalfKey, report: object): Promise<boolean> {
    const result = await this.pool.query<{ staged: boolean }>(
      `INSERT INTO batch_halves (work_id, batch_id, epoch, loaded) VALUES ($1, $2, $3, $4::jsonb)
       ON CONFLICT (work_id, batch_id, epoch) DO UPDATE SET loaded = EXCLUDED.loaded
       RETURNING staging_applied_at IS NOT NULL AS staged`,
      [key.workId, key.batchId, key.epoch, JSON.stringify(report)],
    );
    return result.rows[0]?.staged === true;
  }

  /** Records staging's half; the loader's report when it is in already (the batch is complete), else null. */
  async stagingApplied(key: BatchHalfKey): Promise<unknown> {
    const result = await this.pool.query<{ loaded: unknown }>(
      `INSERT INTO batch_halves (work_id, batch_id, epoch, staging_applied_at) VALUES ($1, $2, $3, now())
       ON CONFLICT (work_id, batch_id, epoch) DO UPDATE SET staging_applied_at = coalesce(batch_halves.staging_applied_at, EXCLUDED.staging_applied_at)
       RETURNING loaded`,
      [key.workId, key.batchId, key.epoch],
    );
    return result.rows[0]?.loaded ?? null;
  }

  /** Forgets a completed batch's halves, and any never matched for a week. */
  async forget(key: BatchHalfKey): Promise<void> {
    await this.pool.query(
      `DELETE FROM batch_halves WHERE (work_id = $1 AND batch_id = $2 AND epoch = $3) OR recorded_at < now() - make_interval(days => ${UNMATCHED_KEPT_DAYS})`,
      [key.workId, key.batchId, key.epoch],
    );
  }
}
