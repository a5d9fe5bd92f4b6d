import { createHash } from 'node:crypto';
import { Portable, type TableDefinition } from '@svc/contracts';
import { ChecksumsUnsupportedError } from '@svc/engines';
import type { ConnectionPool } from 'mssql';
import { changeTrackingDouble, openTransactionsOf, type ChangeTrackingState } from './change-tracking.double';
import { CURRENT_VERSION_SQL } from './read-sql';
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

afterEach(() => {
  expect(double.pool === undefined ? 0 : openTransactionsOf(double.pool)).toBe(0);
  double.pool = undefined;
});

const items: TableDefinition = {
  table: { schema: 'dbo', name: 'items' },
  columns: [
    { name: 'id', sourceType: 'int', portableType: Portable.integer(), nullable: false },
    { name: 'name', sourceType: 'nvarchar(40)', portableType: Portable.varchar(40), nullable: true },
  ],
  primaryKey: ['id'],
} as TableDefinition;

const state = (changes: ChangeTrackingState['changes'] = [], more: Partial<ChangeTrackingState> = {}): ChangeTrackingState => ({
  currentVersion: 41n,
  tableMinValidVersion: 5n,
  mayViewChangeTracking: true,
  userName: 'replicator',
  changes,
  transactionStatements: [],
  ...more,
});

function checksums() {
  const source = createSqlServerSource('Server=sql.example.com;Database=shop;User Id=replicator;Password=x', { encrypt: true });
  const checksumsOf = source.checksums;
  if (checksumsOf === undefined) throw new Error('the SQL Server source has no checksums');
  return { source, checksums: checksumsOf.call(source, items) };
}

describe('SQL Server validation, source side, on a double of Change Tracking as Microsoft documents it', () => {
  // https://learn.microsoft.com/en-us/sql/relational-databases/track-changes/work-with-change-tracking-sql-server: a
  // SNAPSHOT transaction whose first statement reads CHANGE_TRACKING_CURRENT_VERSION() sees every change up to it.
  it('opens its snapshot as a seed does: a SNAPSHOT transaction whose first statement reads the current version, at version current + 1', async () => {
    double.state = state([], { rowsEstimate: 1234 });
    const { source, checksums: side } = checksums();
    const snapshot = await side.openSnapshot();
    expect({ version: snapshot.version, rowsEstimated: snapshot.rowsEstimated }).toEqual({ version: '42', rowsEstimated: 1234 });
    expect(double.state.transactionStatements?.[0]).toBe(CURRENT_VERSION_SQL);
    expect(openTransactionsOf(double.pool as ConnectionPool)).toBe(1);
    await snapshot.close();
    await snapshot.close();
    await source.close();
  });

  it('is Skipped on SQL Server 2017 and older, saying why, before opening any transaction', async () => {
    double.state = state([], { majorVersion: 14 });
    const { source, checksums: side } = checksums();
    const opened = side.openSnapshot();
    await expect(opened).rejects.toBeInstanceOf(ChecksumsUnsupportedError);
    await expect(opened).rejects.toThrow(/SQL Server 2019 or later, or Azure SQL/);
    expect(double.state.transactionStatements).toEqual([]);
    await source.close();
  });

  it('validates on Azure SQL Database, whatever its ProductVersion says', async () => {
    double.state = state([], { majorVersion: 12, engineEdition: 5 });
    const { source, checksums: side } = checksums();
    await (await side.openSnapshot()).close();
    await source.close();
  });

  // CHANGETABLE(CHANGES t, last) returns the changes after `last`: the keys changed at or after version v are those after v - 1.
  it('names the distinct keys changed at or after a version, a deleted one too, and null when there are more than asked', async () => {
    double.state = state([
      { version: 39n, key: '1' },
      { version: 40n, key: '2' },
      { version: 41n, key: '2' },
      { version: 41n, key: '3' },
    ]);
    const { source, checksums: side } = checksums();
    const md5 = (text: string) => createHash('md5').update(text).digest('hex');
    expect(await side.keysChangedSince('40', 2)).toEqual([
      { keyHash: md5('2'), key: ['2'] },
      { keyHash: md5('3'), key: ['3'] },
    ]);
    expect(await side.keysChangedSince('40', 1)).toBeNull();
    expect(await side.keysChangedSince('42', 5)).toEqual([]);
    await source.close();
  });

  it('orders bigint versions past 2^53 exactly, and cannot mark keys changed (a repair reseeds)', () => {
    const { checksums: side } = checksums();
    expect(side.compareVersions('9007199254740993', '9007199254740992')).toBe(1);
    expect(side.compareVersions('10', '9')).toBe(1);
    expect(side.compareVersions('7', '7')).toBe(0);
    expect(side.markChanged).toBeUndefined();
  });
});
