import { createHash } from 'node:crypto';
import { Portable, type TableDefinition } from '@svc/contracts';
import { ChecksumsUnsupportedError } from '@svc/engines';
import type { ConnectionPool } from 'mssql';
import { changeTrackingDouble, openTransactionsOf, type ChangeTrackingState, type DoublePoolOptions } from './change-tracking.double';
import { CURRENT_VERSION_SQL } from './read-sql';
import { createSqlServerSource } from './sqlserver-source';
import { UnpairedSurrogateError } from './unpaired-surrogates';

const double: { state: ChangeTrackingState; pool?: ConnectionPool; poolOptions?: DoublePoolOptions } = {
  state: { currentVersion: 0n, tableMinValidVersion: 0n, mayViewChangeTracking: true, userName: 'replicator' },
};

jest.mock('@svc/sqlserver/common', () => ({
  ...jest.requireActual<object>('@svc/sqlserver/common'),
  connectSqlServer: (config: { pool?: { max?: number } }) => {
    // The pool mssql makes from the source's config: tarn's max is config.pool.max.
    double.pool = changeTrackingDouble(double.state, { ...(config.pool?.max !== undefined && { max: config.pool.max }), ...double.poolOptions });
    return Promise.resolve(double.pool);
  },
}));

afterEach(() => {
  expect(double.pool === undefined ? 0 : openTransactionsOf(double.pool)).toBe(0);
  double.pool = undefined;
  double.poolOptions = undefined;
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

function checksums(definition: TableDefinition = items) {
  const source = createSqlServerSource('Server=sql.example.com;Database=shop;User Id=replicator;Password=x', { encrypt: true });
  const checksumsOf = source.checksums;
  if (checksumsOf === undefined) throw new Error('the SQL Server source has no checksums');
  return { source, checksums: checksumsOf.call(source, definition) };
}

describe('SQL Server validation, source side, on a double of Change Tracking as Microsoft documents it', () => {
  // https://learn.microsoft.com/en-us/sql/relational-databases/track-changes/work-with-change-tracking-sql-server: a
  // SNAPSHOT transaction whose first statement reads CHANGE_TRACKING_CURRENT_VERSION() sees every change up to it.
  it('opens its snapshot as a seed does: a SNAPSHOT transaction whose first statement reads the current version, at version current + 1', async () => {
    double.state = state([], { rowsEstimate: 1234 });
    const { source, checksums: side } = checksums();
    await side.withSnapshot(async (snapshot) => {
      expect({ version: snapshot.version, rowsEstimated: snapshot.rowsEstimated }).toEqual({ version: '42', rowsEstimated: 1234 });
      expect(double.state.transactionStatements?.[0]).toBe(CURRENT_VERSION_SQL);
      expect(openTransactionsOf(double.pool as ConnectionPool)).toBe(1);
      await snapshot.close();
    });
    expect(openTransactionsOf(double.pool as ConnectionPool)).toBe(0);
    await source.close();
  });

  it('is Skipped on SQL Server 2017 and older, saying why, before opening any transaction', async () => {
    double.state = state([], { majorVersion: 14 });
    const { source, checksums: side } = checksums();
    const opened = side.withSnapshot(() => Promise.resolve());
    await expect(opened).rejects.toBeInstanceOf(ChecksumsUnsupportedError);
    await expect(opened).rejects.toThrow(/SQL Server 2019 or later, or Azure SQL/);
    expect(double.state.transactionStatements).toEqual([]);
    await source.close();
  });

  it('validates on Azure SQL Database, whatever its ProductVersion says', async () => {
    double.state = state([], { majorVersion: 12, engineEdition: 5 });
    const { source, checksums: side } = checksums();
    await side.withSnapshot(() => Promise.resolve());
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
    await side.withSnapshot(async (snapshot) => {
      expect(await snapshot.keysChangedSince('40', 2)).toEqual([
        { keyHash: md5('2'), key: ['2'] },
        { keyHash: md5('3'), key: ['3'] },
      ]);
      expect(await snapshot.keysChangedSince('40', 1)).toBeNull();
      expect(await snapshot.keysChangedSince('42', 5)).toEqual([]);
    });
    await source.close();
  });

  // Issue 35: a comparison holds its snapshot while it reads the keys changed since (settledBase, changedSince), which the
  // snapshot cannot see. Eight tables compared at once on the source's default pool of four: before, each took the
  // snapshot's connection and then asked the pool for another, all four holders waited on each other, and the pool's
  // acquire timeout ("Failed to acquire a connection from the pool", tarn) failed every one of them as an internal error.
  it('compares eight tables at once on a pool of four: a snapshot and its change reads take their connections together, none waits holding one', async () => {
    double.state = state([{ version: 40n, key: '2' }]);
    double.poolOptions = { acquireTimeoutMillis: 2_000 };
    const source = createSqlServerSource('Server=sql.example.com;Database=shop;User Id=replicator;Password=x', { encrypt: true });
    const tables = Array.from({ length: 8 }, (_, index): TableDefinition => ({ ...items, table: { schema: 'dbo', name: `items_${index}` } }));
    const md5 = (text: string) => createHash('md5').update(text).digest('hex');
    const checksumsOf = source.checksums?.bind(source);
    if (checksumsOf === undefined) throw new Error('the SQL Server source has no checksums');
    const compared = await Promise.all(
      tables.map((definition) =>
        checksumsOf(definition).withSnapshot(async (snapshot) => {
          // The snapshot's reads (bucket sums) take a while before the keys changed since are asked for.
          await new Promise((resolve) => setTimeout(resolve, 100));
          const first = await snapshot.keysChangedSince('40', 10);
          return [first, await snapshot.keysChangedSince(snapshot.version, 10)];
        }),
      ),
    );
    expect(compared).toEqual(tables.map(() => [[{ keyHash: md5('2'), key: ['2'] }], []]));
    expect((double.pool as unknown as { connectionsInUse(): number }).connectionsInUse()).toBe(0);
    await source.close();
  });

  // nvarchar keys may hold half of a surrogate pair ("The LEFT, RIGHT, SUBSTRING, STUFF, and REVERSE functions may split any
  // surrogate pairs", Supplementary Characters, https://learn.microsoft.com/en-us/previous-versions/sql/sql-server-2008-r2/ms180942(v=sql.105)),
  // and tedious reads them as they are (value-parser.js readNChars, `toString('ucs2')`). Before, both keys below came back,
  // and a warehouse lookup of either (bound as UTF-8) found the row of 'a' + U+FFFD.
  it('stops validation, naming table and key column, when a key it reads holds half of a surrogate pair', async () => {
    const coded: TableDefinition = { ...items, columns: [{ name: 'code', sourceType: 'nvarchar(10)', portableType: Portable.varchar(10), nullable: false }], primaryKey: ['code'] };
    const half = (unit: number) => Buffer.from(Uint16Array.from([0x61, unit]).buffer).toString('ucs2');
    double.state = state([
      { version: 40n, key: half(0xd800) },
      { version: 41n, key: half(0xdbff) },
    ]);
    const { source, checksums: side } = checksums(coded);
    const refusal = await side.withSnapshot((snapshot) => snapshot.keysChangedSince('40', 10)).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(UnpairedSurrogateError);
    expect(refusal).toMatchObject({ kind: 'invalid-data', valueDetail: '[dbo].[items]: the key (code=a\\uD800); column code holds U+D800 unpaired' });
    expect((refusal as UnpairedSurrogateError).message).toMatch(/^Source: \[dbo\]\.\[items\], key column code holds half of a UTF-16 surrogate pair .*validation stops/);
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
