import type { Request } from 'mssql';

/**
 * The database's incarnation (SourceIncarnation), read in the snapshot of every seed and change read right after its
 * version, so that a restore or failover that has already passed the watermark is seen (Microsoft, "Change tracking
 * and data restore": restored to 70 and updated to 130, a client at 100 "validates this number successfully" and "is
 * not aware that the changes between 70 and 100 are not the same as before"; its first remedy is an identifier that
 * changes on every restore, checked at every synchronisation). What makes it:
 *   - sys.database_recovery_status.recovery_fork_guid, "the current recovery fork on which the database is currently
 *     active": a restore to a point in time, to the end of a log backup other than the last, or of a full backup alone
 *     starts a new recovery path ("Recovery Paths");
 *   - the database's identity: for a database in an availability group, sys.databases.group_database_id ("identical on
 *     every replica to which this database is joined"), so a failover between replicas is not a move; otherwise
 *     database_guid ("RESTORE always generates a new GUID when you restore a database that does not yet exist": a
 *     database lost and restored under its name);
 *   - on Azure SQL Database (EngineEdition 5), where sys.database_recovery_status is not documented, the database's
 *     create_date: a point-in-time restore always creates a new database.
 * The recovery status row is visible to the database's owner and to logins with VIEW ANY DATABASE (granted to public
 * by default); without it the incarnation is unknown (NULL) and only the check that versions did not go back holds.
 * The recovery status query runs through EXEC, compiled only on the branch that runs, so that a server without the
 * view never sees its name.
 */
export const SOURCE_INCARNATION_SQL = `IF CONVERT(int, SERVERPROPERTY('EngineEdition')) = 5
  SELECT N'database created ' + CONVERT(nvarchar(30), d.create_date, 126) AS incarnation FROM sys.databases AS d WHERE d.database_id = DB_ID()
ELSE
  EXEC (N'SELECT N''recovery fork '' + CONVERT(nvarchar(36), rs.recovery_fork_guid) + N'', database '' + CONVERT(nvarchar(36), COALESCE(d.group_database_id, rs.database_guid)) AS incarnation
FROM sys.databases AS d LEFT JOIN sys.database_recovery_status AS rs ON rs.database_id = d.database_id
WHERE d.database_id = DB_ID()')`;

/** The incarnation as the server answers it: null when the login may not see it. */
export async function readIncarnation(request: Request): Promise<string | null> {
  const rows = (await request.query<{ incarnation: string | null }>(SOURCE_INCARNATION_SQL)).recordset ?? [];
  const incarnation = rows[0]?.incarnation ?? null;
  return incarnation === null || incarnation === '' ? null : incarnation;
}
