import type { TableDefinition } from '@svc/contracts';
import { SourceVersionsRewoundError, isEngineError, type EngineError } from '@svc/engines';
import type { ConnectionPool } from 'mssql';
import { changeTrackingDouble, openTransactionsOf, type ChangeTrackingState } from './change-tracking.double';
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
