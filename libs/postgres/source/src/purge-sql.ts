import type { TableRef } from '@svc/contracts';
import { TRACKED_TABLES, inChangeSchema, trackingNames } from './identifiers';

/**
 * Purges the records older than $1 hours, and every record of a transaction up to the newest of them, so
 * that the change table holds exactly the records with svc_xid >= the minimum valid version afterwards.
 * Only transactions below the read horizon (the cluster's snapshot xmin) are purged: a change window ends there,
 * so while an older transaction is still open, a record above it may not have been read yet by anyone, and a
 * minimum valid version above the horizon would make every reader, and every reseed (whose start version is the
 * horizon), find its changes purged — a reseed loop for as long as that transaction stays open.
 * $2 lowers the horizon for a log-captured table to where the relay of the log stands (null for triggers): a record
 * above it may still be on its way. Returns the number purged and the newest purged transaction (null when nothing was old enough).
 */
export function purgeChangesSql(table: TableRef): string {
  const changeTable = inChangeSchema(trackingNames(table).changeTable);
  return `with cutoff as (
  select svc_xid from ${changeTable}
  where svc_changed_at < now() - make_interval(hours => $1)
    and svc_xid < least(pg_snapshot_xmin(pg_current_snapshot()), coalesce($2::xid8, pg_snapshot_xmin(pg_current_snapshot())))
  order by svc_xid desc limit 1
),
purged as (
  delete from ${changeTable}
  where svc_xid <= (select svc_xid from cutoff)
  returning 1
)
select (select count(*) from purged)::float8 as purged_rows, (select svc_xid::text from cutoff) as newest_purged`;
}

/** $1 schema, $2 name, $3 the new minimum valid version; it never moves back. */
export const RAISE_MIN_VALID_VERSION_SQL = `update ${TRACKED_TABLES}
set min_valid_version = greatest(min_valid_version, $3::xid8)
where schema = $1 and name = $2`;

/** $1 schema, $2 name: the registry row, locked so that purges of one table take turns. */
export const LOCK_TRACKED_TABLE_SQL = `select change_table from ${TRACKED_TABLES} where schema = $1 and name = $2 for update`;

