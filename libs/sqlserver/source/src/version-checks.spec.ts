import type { TableDefinition } from '@svc/contracts';
import { SourceIncarnationChangedError, SourceVersionsRewoundError, isEngineError, type EngineError } from '@svc/engines';
import type { ConnectionPool } from 'mssql';
import { changeTrackingDouble, openTransactionsOf, restoreDatabase, type ChangeTrackingState } from './change-tracking.double';
import { readIncarnation } from './incarnation';
import { createSqlServerSource } from './sqlserver-source';

const double: { state: ChangeTrackingState; pool?: ConnectionPool } = {
  state: { currentVersion: 0n, tableMinValidVersion: 0n, mayViewChangeTracking: true, userName: 'replicator' },
};

jest.mock('@svc/sqlserver/common', () => ({
  ...jest.requireActual<object>('@svc/sqlserver/common'),
  connectSqlServer: () => {
    double.pool = changeTrackingDouble(double.state);
    return Promise.resolve(double.pool);
  },
}));

// Every refused read ends its SNAPSHOT transaction: a rollback refused (a request still running) would keep its pooled connection.
afterEach(() => {
  expect(double.pool === undefined ? 0 : openTransactionsOf(double.pool)).toBe(0);
  double.pool = undefined;
});

const items: TableDefinition = {
  table: { schema: 'dbo', name: 'items' },
  columns: [{ name: 'id', sourceType: 'int', nullable: false }],
  primaryKey: ['id'],
} as TableDefinition;

function source() {
  return createSqlServerSource('Server=sql.example.com;Database=shop;User Id=replicator;Password=x', { encrypt: true });
}

describe('a SQL Server change read checks the versions as the server answers them', () => {
  // https://learn.microsoft.com/en-us/sql/relational-databases/track-changes/work-with-change-tracking-sql-server
  // ("Change Tracking and data restore"): after a restore the current version can be lower than the client's; it must reinitialise.
  it('reseeds, saying the versions went backwards, when the current version is below the watermark (a restore or failover)', async () => {
    double.state = { currentVersion: 40n, tableMinValidVersion: 5n, mayViewChangeTracking: true, userName: 'replicator' };
    const connector = source();
    const read = connector.readChanges(items, '101', 10);
    await expect(read).rejects.toBeInstanceOf(SourceVersionsRewoundError);
    const error: unknown = await read.catch((failure: unknown) => failure);
    expect(isEngineError(error, 'changes-purged')).toBe(true);
    expect((error as Error).message).toMatch(/went backwards .*current version 40 is below watermark 101.*restore.*failover/);
    await connector.close();
  });

  it('reads on when the current version merely equals the watermark less one (nothing new yet)', async () => {
    double.state = { currentVersion: 100n, tableMinValidVersion: 5n, mayViewChangeTracking: true, userName: 'replicator' };
    const connector = source();
    // Past the version checks the double is asked for the columns, which it does not answer: the checks passed.
    await expect(connector.readChanges(items, '101', 10)).rejects.toThrow(/does not answer/);
    await connector.close();
  });

  // https://learn.microsoft.com/en-us/sql/relational-databases/system-functions/change-tracking-min-valid-version-transact-sql:
  // NULL on "insufficient permission to the table specified by the object ID".
  it('stops the table with a permission error naming the grant when the login lacks VIEW CHANGE TRACKING', async () => {
    double.state = { currentVersion: 100n, tableMinValidVersion: 5n, mayViewChangeTracking: false, userName: 'replicator' };
    const connector = source();
    const error: unknown = await connector.readChanges(items, '50', 10).catch((failure: unknown) => failure);
    expect(isEngineError(error, 'permission-denied')).toBe(true);
    // permission-denied stops the table (the failure classifier's verdict); its own words are the reason Describe shows.
    expect((error as EngineError).serviceWorded).toBe(true);
    expect((error as Error).message).toContain('GRANT VIEW CHANGE TRACKING ON [dbo].[items] TO [replicator]');
    await connector.close();
  });
});

/** The incarnation the double's database answers now, read as the source reads it. */
async function incarnationNow(): Promise<string> {
  const incarnation = await readIncarnation(changeTrackingDouble(double.state).request());
  if (incarnation === null) throw new Error('the double answered no incarnation');
  return incarnation;
}

describe('a SQL Server change read reseeds when the database is another incarnation than its watermark\'s', () => {
  // https://learn.microsoft.com/en-us/sql/relational-databases/track-changes/work-with-change-tracking-sql-server,
  // "Change tracking and data restore": synchronised at 100, restored to 70, updated to 130; the client at 100
  // "validates this number successfully because 100 is greater than 50" and "is not aware that the changes between
  // 70 and 100 are not the same as before". Before incarnations, this read passed every check (130 is past 101).
  it('reseeds after a restore to 70 and updates to 130, read from 101 (Microsoft\'s scenario)', async () => {
    double.state = { currentVersion: 100n, tableMinValidVersion: 50n, mayViewChangeTracking: true, userName: 'replicator' };
    const watermarkIncarnation = await incarnationNow();
    restoreDatabase(double.state, 70n);
    double.state.currentVersion = 130n;
    const connector = source();
    const error: unknown = await connector.readChanges(items, '101', 10, { incarnation: watermarkIncarnation }).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(SourceIncarnationChangedError);
    expect(isEngineError(error, 'changes-purged')).toBe(true);
    expect((error as Error).message).toMatch(/\[dbo\]\.\[items\] is not the one its watermark was read from \(recovery fork .* then, recovery fork .* now: a restore/);
    await connector.close();
  });

  it('reseeds after a database lost and restored under its name (a new database_guid and recovery fork)', async () => {
    double.state = { currentVersion: 100n, tableMinValidVersion: 50n, mayViewChangeTracking: true, userName: 'replicator' };
    const watermarkIncarnation = await incarnationNow();
    restoreDatabase(double.state, 120n, { asNewDatabase: true });
    const connector = source();
    await expect(connector.readChanges(items, '101', 10, { incarnation: watermarkIncarnation })).rejects.toBeInstanceOf(SourceIncarnationChangedError);
    await connector.close();
  });

  // Azure SQL Database (EngineEdition 5): sys.database_recovery_status is documented for SQL Server and Managed
  // Instance only; "a point-in-time restore always creates a new database" (Azure SQL Database, "Restore a database
  // from a backup"), so the database's create_date names the incarnation there.
  it('on Azure SQL Database, never names the recovery status view and reseeds after a point-in-time restore', async () => {
    double.state = { currentVersion: 100n, tableMinValidVersion: 50n, mayViewChangeTracking: true, userName: 'replicator', engineEdition: 5 };
    const watermarkIncarnation = await incarnationNow();
    expect(watermarkIncarnation).toMatch(/^database created 2026-/);
    restoreDatabase(double.state, 70n, { asNewDatabase: true });
    double.state.currentVersion = 130n;
    const connector = source();
    await expect(connector.readChanges(items, '101', 10, { incarnation: watermarkIncarnation })).rejects.toBeInstanceOf(SourceIncarnationChangedError);
    await connector.close();
  });

  it('reads on after a failover between availability-group replicas (group_database_id is the same, database_guid is not)', async () => {
    const primary = { recoveryForkGuid: 'A1', databaseGuid: 'PRIMARY-GUID', groupDatabaseId: 'GROUP-DB', createDate: '2026-01-05T09:00:00.000' };
    double.state = { currentVersion: 100n, tableMinValidVersion: 50n, mayViewChangeTracking: true, userName: 'replicator', database: primary };
    const watermarkIncarnation = await incarnationNow();
    double.state.database = { ...primary, databaseGuid: 'SECONDARY-GUID', createDate: '2026-01-06T10:00:00.000' };
    const connector = source();
    // Past the checks the double is asked for the columns, which it does not answer: the incarnation check passed.
    await expect(connector.readChanges(items, '101', 10, { incarnation: watermarkIncarnation })).rejects.toThrow(/does not answer/);
    await connector.close();
  });

  it('reads on when the login may not see the recovery status (the incarnation is unknown, not moved), and from a watermark stored without one', async () => {
    double.state = { currentVersion: 100n, tableMinValidVersion: 50n, mayViewChangeTracking: true, userName: 'replicator' };
    const watermarkIncarnation = await incarnationNow();
    restoreDatabase(double.state, 120n);
    double.state.database = { ...double.state.database!, recoveryStatusVisible: false };
    const connector = source();
    await expect(connector.readChanges(items, '101', 10, { incarnation: watermarkIncarnation })).rejects.toThrow(/does not answer/);
    double.state.database = { ...double.state.database, recoveryStatusVisible: true };
    await expect(connector.readChanges(items, '101', 10)).rejects.toThrow(/does not answer/);
    await connector.close();
  });
});
