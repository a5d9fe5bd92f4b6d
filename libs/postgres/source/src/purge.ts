import type { RetentionPeriod, TableRef } from '@svc/contracts';
import type { Pool } from 'pg';
import { LOCK_TRACKED_TABLE_SQL, RAISE_MIN_VALID_VERSION_SQL, purgeChangesSql } from './purge-sql';
import { registryExists, trackedTable } from './registry';
import { RELAYED_HORIZON_SQL } from './log/log-sql';
import { relayLog } from './log/log-relay';
import { retentionHours } from './retention';
import { inTransaction } from '@svc/postgres/common';
import { parseVersion } from './versions';

/**
 * Purges records older than the retention period, and with them every record of the transactions up to
 * the newest purged one; the minimum valid version becomes that transaction + 1. So the change table
 * always holds exactly the records at or above the minimum valid version, and a watermark below it has
 * lost changes. (Purging by age alone would not give that: a transaction's svc_changed_at is its start
 * time, which does not follow xid order.)
 */
export async function purgeChanges(pool: Pool, table: TableRef, retention: RetentionPeriod): Promise<{ purgedRows: number }> {
  // What the log holds below now is in the change tables first, so the purge's horizon is the read horizon.
  if ((await trackedTable(pool, table))?.capture === 'log') await relayLog(pool);
  return inTransaction(pool, async (client) => {
    if (!(await registryExists(client))) return { purgedRows: 0 };
    const tracked = await client.query(LOCK_TRACKED_TABLE_SQL, [table.schema, table.name]);
    if (tracked.rowCount === 0) return { purgedRows: 0 };
    const logCaptured = (await trackedTable(client, table))?.capture === 'log';
    const relayed = logCaptured ? ((await client.query<{ horizon: string }>(RELAYED_HORIZON_SQL)).rows[0]?.horizon ?? '0') : null;
    const purged = await client.query<{ purged_rows: number; newest_purged: string | null }>(purgeChangesSql(table), [
      retentionHours(retention),
      relayed,
    ]);
    const row = purged.rows[0];
    if (row?.newest_purged == null) return { purgedRows: 0 };
    const minValid = parseVersion(row.newest_purged, 'purged version') + 1n;
    await client.query(RAISE_MIN_VALID_VERSION_SQL, [table.schema, table.name, minValid.toString()]);
    return { purgedRows: row.purged_rows };
  });
}
