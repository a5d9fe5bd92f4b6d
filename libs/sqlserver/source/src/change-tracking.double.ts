import type { ConnectionPool } from 'mssql';

/**
 * A SQL Server database as its Change Tracking functions answer, for the statements a change read sends
 * before it reads rows. Each answer follows Microsoft's documentation:
 *   - CHANGE_TRACKING_CURRENT_VERSION() is the database's current version; after a restore (or a failover to a
 *     replica that was behind) it is the restored database's, lower than versions a client synchronised to
 *     ("Change Tracking and data restore", https://learn.microsoft.com/en-us/sql/relational-databases/track-changes/work-with-change-tracking-sql-server).
 *   - CHANGE_TRACKING_MIN_VALID_VERSION(object_id) is NULL when Change Tracking is not enabled for the database,
 *     the object id is not valid, or on "insufficient permission to the table specified by the object ID"
 *     (https://learn.microsoft.com/en-us/sql/relational-databases/system-functions/change-tracking-min-valid-version-transact-sql);
 *     reading changes needs VIEW CHANGE TRACKING on the table (the "Security" part of the first page).
 *   - HAS_PERMS_BY_NAME(securable, 'OBJECT', permission) is 1 or 0, NULL for a securable it cannot find
 *     (https://learn.microsoft.com/en-us/sql/t-sql/functions/has-perms-by-name-transact-sql).
 * A statement it does not know fails, so a read that goes past these checks fails the test that did not expect it.
 */
export interface ChangeTrackingState {
  currentVersion: bigint;
  /** The table's minimum valid version, null when the table is not tracked. */
  tableMinValidVersion: bigint | null;
  /** Whether the login holds VIEW CHANGE TRACKING on the table. */
  mayViewChangeTracking: boolean;
  userName: string;
}

export function changeTrackingDouble(state: ChangeTrackingState): ConnectionPool {
  const answer = (statement: string): Record<string, unknown> => {
    if (statement.includes('snapshot_isolation_state')) return { state: 1 };
    if (statement.includes('CHANGE_TRACKING_CURRENT_VERSION()')) return { current_version: state.currentVersion.toString() };
    if (statement.includes('CHANGE_TRACKING_MIN_VALID_VERSION(')) {
      const visible = state.mayViewChangeTracking ? state.tableMinValidVersion : null;
      return { min_valid_version: visible === null ? null : visible.toString() };
    }
    if (statement.includes("HAS_PERMS_BY_NAME(@table, 'OBJECT', 'VIEW CHANGE TRACKING')")) {
      return { may_view_changes: state.mayViewChangeTracking ? 1 : 0, user_name: state.userName };
    }
    throw new Error(`the Change Tracking double does not answer ${statement.slice(0, 80)}`);
  };
  const request = () => ({
    input: () => undefined,
    query: (statement: string) => Promise.resolve({ recordset: [answer(statement)] }),
    batch: (statement: string) => Promise.resolve({ recordset: [answer(statement)] }),
  });
  const transaction = () => ({ begin: () => Promise.resolve(), rollback: () => Promise.resolve(), request });
  return { request, transaction, close: () => Promise.resolve() } as unknown as ConnectionPool;
}
