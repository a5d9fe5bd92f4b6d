import type { Pool, PoolClient } from 'pg';

/**
 * The cluster's incarnation (SourceIncarnation): its system identifier and the timeline it writes WAL on. Versions
 * are transaction ids, which a restore takes back: a point-in-time recovery replays WAL to an earlier point and ends on
 * a new timeline ("Continuous Archiving and Point-in-Time Recovery": "whenever an archive recovery completes, a new
 * timeline is created"), as does the promotion of a standby that may have been behind; a cluster restored from a
 * logical dump, or recreated, has another system identifier (set by initdb). Either way transaction ids may pass the
 * watermark again with other transactions, so a read whose watermark names another incarnation reseeds.
 * The current timeline is the first eight hex digits of the WAL file being written (pg_walfile_name, which a server in
 * recovery refuses; there the last checkpoint's timeline stands in). A planned switchover to a standby is a new
 * timeline too: it reseeds, which costs a full copy but never loses a change.
 */
export const SOURCE_INCARNATION_SQL = `select concat((select system_identifier from pg_control_system()), ' timeline ',
  case when pg_is_in_recovery() then (select timeline_id from pg_control_checkpoint())
    else ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int end) as incarnation`;

/**
 * The incarnation, or null when this server does not say it (a managed service that hides the control functions):
 * then only the check that the snapshot's xmin did not go back below the watermark holds. Read on its own connection
 * from the pool, never inside a read's transaction, so that a refused function cannot abort the read.
 */
export async function readIncarnation(pool: Pool | PoolClient): Promise<string | null> {
  try {
    const row = (await pool.query<{ incarnation: string | null }>(SOURCE_INCARNATION_SQL)).rows[0];
    return row?.incarnation ?? null;
  } catch (error) {
    if (isStatementError(error)) return null;
    throw error;
  }
}

/** An error the server raised for the statement (it has a SQLSTATE), as opposed to a lost connection. */
function isStatementError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('08') && !code.startsWith('57');
}
