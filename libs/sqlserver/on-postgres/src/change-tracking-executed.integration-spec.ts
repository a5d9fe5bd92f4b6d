import type { TableDefinition } from '@svc/contracts';
import { ChangesPurgedError, SourceVersionsRewoundError, TableNotTrackedError, isEngineError, type RowStream, type SourceConnector } from '@svc/engines';
import { csvRows, serveSqlServerConnectionsForTests } from '@svc/sqlserver/common';
import { createSqlServerSource, sourceSql } from '@svc/sqlserver/source';
import { createTempDatabase, seededRandom, type TempDatabase } from '@svc/testing';
import { Pool, type PoolClient } from 'pg';
import { cleanupChanges, currentVersion, enableTableTracking, installChangeTrackingModel, minValidVersion, restoreVersionsTo } from './change-tracking-model';
import { MssqlPoolOnPostgres, type PoolOnPostgresSettings } from './pool-on-postgres';
import { UntranslatedStatementError, translateTsql, type TsqlInput } from './tsql-to-postgres';

const { CURRENT_VERSION_SQL } = sourceSql;

/*
 * The SQL Server source's seeds and change reads, executed: its statements run, translated, against a model of SQL Server
 * Change Tracking in PostgreSQL (change-tracking-model.ts, whose header cites the Microsoft pages each rule follows),
 * through an mssql-shaped pool (pool-on-postgres.ts) that connectSqlServer returns here.
 */
const double: { url: string; settings: PoolOnPostgresSettings; pools: MssqlPoolOnPostgres[] } = { url: '', settings: {}, pools: [] };

serveSqlServerConnectionsForTests(() => {
  const pool = new MssqlPoolOnPostgres(double.url, double.settings);
  double.pools.push(pool);
  return Promise.resolve(pool.connectionPool);
});

type Row = (string | null)[];

let database: TempDatabase;
let writers: Pool;
const connectors: SourceConnector[] = [];

beforeAll(async () => {
  database = await createTempDatabase('ct_executed');
  double.url = database.url;
  writers = new Pool({ connectionString: database.url, max: 6 });
  await installChangeTrackingModel(writers, 'recovery fork 6F9619FF-8B86-D011-B42D-00C04FC964FF, database 0E984725-C51C-4BF4-9960-E1C80E27ABA0');
  await writers.query('CREATE SCHEMA dbo');
});

afterAll(async () => {
  await writers?.end();
  await database?.drop();
});

// Every statement the source sent was one the model knows, and every SNAPSHOT transaction ended.
afterEach(async () => {
  await Promise.all(connectors.splice(0).map((connector) => connector.close()));
  const pools = double.pools.splice(0);
  double.settings.afterStatement = undefined;
  double.settings.versionReadBeforeSnapshot = false;
  expect(pools.flatMap((pool) => pool.refused)).toEqual([]);
  expect(pools.map((pool) => pool.openTransactions)).toEqual(pools.map(() => 0));
});

function source(): SourceConnector {
  const connector = createSqlServerSource('Server=sql.example.com;Database=shop;User Id=replicator;Password=x', { encrypt: true });
  connectors.push(connector);
  return connector;
}

/** dbo.<name> (id int primary key, name nvarchar(40)) under Change Tracking, with `rows` inserted after; its definition as the source describes it. */
async function trackedTable(name: string, rows: [number, string | null][] = [], options: { deferrableKey?: boolean } = {}): Promise<TableDefinition> {
  await writers.query(`CREATE TABLE dbo.${name} (id integer PRIMARY KEY${options.deferrableKey ? ' DEFERRABLE' : ''}, name varchar(40))`);
  await enableTableTracking(writers, { schema: 'dbo', name });
  if (rows.length > 0) await writers.query(`INSERT INTO dbo.${name} SELECT * FROM unnest($1::int[], $2::text[])`, [rows.map(([id]) => id), rows.map(([, text]) => text)]);
  const definition = await source().describeTable({ schema: 'dbo', name });
  if (!definition) throw new Error(`the source does not see dbo.${name}`);
  return definition;
}

/** One writer transaction (READ COMMITTED), committed. */
async function commit(...statements: string[]): Promise<void> {
  const client = await writers.connect();
  try {
    await client.query('BEGIN');
    for (const statement of statements) await client.query(statement);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

/** CHANGE_TRACKING_CURRENT_VERSION() now. */
async function now(): Promise<bigint> {
  return (await currentVersion(writers)) ?? 0n;
}

/** A read's rows, ordered by the key (the column at `keyAt`). */
async function rowsOf(read: RowStream, keyAt: number): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const row of csvRows(read.rows)) rows.push(row);
  await read.finished;
  return rows.sort((a, b) => Number(a[keyAt]) - Number(b[keyAt]) || JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

async function changes(connector: SourceConnector, definition: TableDefinition, from: string, limit = 1000): Promise<{ toVersion: string; limited: boolean; rows: Row[] }> {
  const read = await connector.readChanges(definition, from, limit);
  return { toVersion: read.toVersion, limited: read.limited, rows: await rowsOf(read, 1) };
}

/** Runs `work` once, right after the first time a transaction of the source has run `statement`. */
function afterFirst(statement: string, work: () => Promise<void>): void {
  let done = false;
  double.settings.afterStatement = async (sent, where) => {
    if (done || where !== 'transaction' || sent !== statement) return;
    done = true;
    await work();
  };
}

describe('the SQL Server source reads Change Tracking, executed against a model of it', () => {
  // CHANGETABLE: "Only one row is returned for each row in the user table that has been changed"; the source joins it to the
  // table for the current row and reads a key whose row is gone as a delete.
  it('reads inserts, updates and deletes since a seed as one net change per key, and nothing when nothing changed', async () => {
    const items = await trackedTable('basic', [
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ]);
    const connector = source();
    const seed = await connector.readSnapshot(items);
    expect(await rowsOf(seed, 0)).toEqual([
      ['1', 'a'],
      ['2', 'b'],
      ['3', 'c'],
    ]);
    expect(seed.startVersion).toBe(String((await now()) + 1n));
    await commit("INSERT INTO dbo.basic VALUES (4, 'd')");
    await commit("UPDATE dbo.basic SET name = 'b2' WHERE id = 2");
    await commit('DELETE FROM dbo.basic WHERE id = 3');
    const read = await changes(connector, items, seed.startVersion);
    expect(read.rows).toEqual([
      ['U', '2', 'b2'],
      ['D', '3', null],
      ['I', '4', 'd'],
    ]);
    expect(read).toMatchObject({ limited: false, toVersion: String((await now()) + 1n) });
    expect(await changes(connector, items, read.toVersion)).toEqual({ toVersion: read.toVersion, limited: false, rows: [] });
  });

  // CHANGETABLE: SYS_CHANGE_OPERATION is "relative to the baseline (last_sync_version)": an insert at 10 and an update at 15
  // read from 12 is an update, from 8 an insert; "If you delete a row and then insert a row that has the old primary key,
  // the change is seen as an update".
  it('reads each key at its net operation since the watermark: insert then update, update then delete, delete then re-insert', async () => {
    const net = await trackedTable('net', [
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ]);
    const connector = source();
    const seed = await connector.readSnapshot(net);
    await rowsOf(seed, 0);
    await commit("INSERT INTO dbo.net VALUES (10, 'new')");
    const inserted = await now();
    await commit("UPDATE dbo.net SET name = 'newer' WHERE id = 10");
    await commit("UPDATE dbo.net SET name = 'b2' WHERE id = 2");
    await commit('DELETE FROM dbo.net WHERE id = 2');
    await commit('DELETE FROM dbo.net WHERE id = 3');
    await commit("INSERT INTO dbo.net VALUES (3, 'again')");
    await commit("INSERT INTO dbo.net VALUES (11, 'gone')", 'DELETE FROM dbo.net WHERE id = 11');
    expect((await changes(connector, net, seed.startVersion)).rows).toEqual([
      ['D', '2', null],
      ['U', '3', 'again'],
      ['I', '10', 'newer'],
      ['D', '11', null],
    ]);
    // Read from after the insert of 10, the same key is an update.
    expect((await changes(connector, net, String(inserted + 1n))).rows).toContainEqual(['U', '10', 'newer']);
  });

  // CHANGETABLE: "If a primary key value changes, it is considered to be a delete of the old value and an insert of the new value."
  it('reads a primary-key update as the old key deleted and the new one inserted, and a key shift as updates in between', async () => {
    const moves = await trackedTable(
      'moves',
      [
        [1, 'a'],
        [2, 'b'],
        [3, 'c'],
        [7, 'g'],
      ],
      { deferrableKey: true },
    );
    const connector = source();
    const seed = await connector.readSnapshot(moves);
    await rowsOf(seed, 0);
    await commit('UPDATE dbo.moves SET id = 10 WHERE id = 7');
    await commit('UPDATE dbo.moves SET id = id + 1 WHERE id <= 3');
    expect((await changes(connector, moves, seed.startVersion)).rows).toEqual([
      ['D', '1', null],
      ['U', '2', 'a'],
      ['U', '3', 'b'],
      ['I', '4', 'c'],
      ['D', '7', null],
      ['I', '10', 'g'],
    ]);
  });

  // The source joins CHANGETABLE to the table on every primary key column, in key order (which need not be column order).
  it('joins every column of a composite key, a text column among them, and reads the update of one of them as delete and insert', async () => {
    await writers.query('CREATE TABLE dbo.stock (id integer NOT NULL, region varchar(10) NOT NULL, qty integer, PRIMARY KEY (region, id))');
    await enableTableTracking(writers, { schema: 'dbo', name: 'stock' });
    await writers.query("INSERT INTO dbo.stock VALUES (1, 'north', 5), (1, 'south', 6), (2, 'north', 7)");
    const connector = source();
    const stock = await connector.describeTable({ schema: 'dbo', name: 'stock' });
    expect(stock).toMatchObject({ primaryKey: ['region', 'id'], columns: [{ sourceType: 'int' }, { sourceType: 'nvarchar(10)' }, { sourceType: 'int' }] });
    const seed = await connector.readSnapshot(stock!);
    await rowsOf(seed, 0);
    await commit("UPDATE dbo.stock SET region = 'east' WHERE id = 1 AND region = 'south'");
    await commit('UPDATE dbo.stock SET qty = 70 WHERE id = 2');
    await commit("DELETE FROM dbo.stock WHERE id = 1 AND region = 'north'");
    expect((await changes(connector, stock!, seed.startVersion)).rows).toEqual([
      ['D', '1', 'north', null],
      ['D', '1', 'south', null],
      ['I', '1', 'east', '6'],
      ['U', '2', 'north', '70'],
    ]);
  });

  // ChangeTrackingBatchLimit (versions.ts changeWindow): the window ends at a commit's version, never inside a commit; the
  // next read starts there. CHANGETABLE gives a key at its LAST version, so a key changed early and again late is read late.
  it('bounds a read by the record limit at transaction boundaries and continues without loss or duplicate', async () => {
    const window = await trackedTable('window');
    const connector = source();
    const seed = await connector.readSnapshot(window);
    await rowsOf(seed, 0);
    await commit("INSERT INTO dbo.window VALUES (1, 'one')");
    await commit("INSERT INTO dbo.window VALUES (2, 'two'), (3, 'three'), (4, 'four')");
    const v2 = await now();
    await commit("INSERT INTO dbo.window VALUES (5, 'five')");
    await commit("INSERT INTO dbo.window VALUES (6, 'six')", "UPDATE dbo.window SET name = 'uno' WHERE id = 1");
    const v4 = await now();
    // Keys by last version: 2, 3, 4 at v2; 5 at v3; 1 and 6 at v4. The third row (past the limit of 2) is at v2, the first
    // version: the commit of v2 is read whole, though bigger than the limit.
    const first = await changes(connector, window, seed.startVersion, 2);
    expect(first).toEqual({
      limited: true,
      toVersion: String(v2 + 1n),
      rows: [
        ['I', '2', 'two'],
        ['I', '3', 'three'],
        ['I', '4', 'four'],
      ],
    });
    // The row past the limit is at v4, after the first (v3): the window ends before v4.
    const second = await changes(connector, window, first.toVersion, 2);
    expect(second).toEqual({ limited: true, toVersion: String(v4), rows: [['I', '5', 'five']] });
    // Key 1 was inserted at v1, below this read's baseline: relative to it, an update (its insert was never read alone).
    const third = await changes(connector, window, second.toVersion, 2);
    expect(third).toEqual({
      limited: false,
      toVersion: String(v4 + 1n),
      rows: [
        ['U', '1', 'uno'],
        ['I', '6', 'six'],
      ],
    });
    // Keys committed one by one in descending order: the limit counts changes in version order, not key order.
    await commit("INSERT INTO dbo.window VALUES (30, 'w1')");
    await commit("INSERT INTO dbo.window VALUES (20, 'w2')");
    await commit("INSERT INTO dbo.window VALUES (10, 'w3')");
    const w3 = await now();
    const fourth = await changes(connector, window, third.toVersion, 2);
    expect(fourth).toEqual({
      limited: true,
      toVersion: String(w3),
      rows: [
        ['I', '20', 'w2'],
        ['I', '30', 'w1'],
      ],
    });
    expect(await changes(connector, window, fourth.toVersion, 2)).toEqual({ limited: false, toVersion: String(w3 + 1n), rows: [['I', '10', 'w3']] });
  });

  // Microsoft, "Obtaining Consistent and Correct Results" (work-with-change-tracking-sql-server): "Changes can be made to the
  // tables after the version for next time has been obtained by using CHANGE_TRACKING_CURRENT_VERSION()"; versions are
  // assigned at commit, so a transaction that commits later has a later version, whenever it began.
  it('reads a transaction that commits after a read began in the next read, whenever it began', async () => {
    const late = await trackedTable('late', [[1, 'a']]);
    const connector = source();
    const seed = await connector.readSnapshot(late);
    await rowsOf(seed, 0);
    afterFirst(CURRENT_VERSION_SQL, () => commit("INSERT INTO dbo.late VALUES (2, 'during the read')"));
    const during = await changes(connector, late, seed.startVersion);
    expect(during).toEqual({ toVersion: seed.startVersion, limited: false, rows: [] });

    const open: PoolClient = await writers.connect();
    try {
      await open.query('BEGIN');
      await open.query("INSERT INTO dbo.late VALUES (3, 'began before, committed after')");
      await commit("INSERT INTO dbo.late VALUES (4, 'quick')");
      const before = await changes(connector, late, during.toVersion);
      expect(before.rows).toEqual([
        ['I', '2', 'during the read'],
        ['I', '4', 'quick'],
      ]);
      await open.query('COMMIT');
      const after = await changes(connector, late, before.toVersion);
      expect(after.rows).toEqual([['I', '3', 'began before, committed after']]);
    } finally {
      open.release();
    }
  });

  // read-sql.ts: "a commit after it is in the read or not, but its version is above the one read, so tracking reads it (again)".
  // If SQL Server's snapshot starts after the CHANGE_TRACKING_CURRENT_VERSION() read (SNAPSHOT transactions take theirs at
  // the first access to data), a commit in between is in the snapshot with a version above the one read.
  it('reads a commit between the version read and the snapshot again, in a change read and after a seed', async () => {
    const between = await trackedTable('between', [[1, 'a']]);
    const connector = source();
    double.settings.versionReadBeforeSnapshot = true;
    afterFirst(CURRENT_VERSION_SQL, () => commit("INSERT INTO dbo.between VALUES (2, 'in the seed too')"));
    const seed = await connector.readSnapshot(between);
    expect(await rowsOf(seed, 0)).toEqual([
      ['1', 'a'],
      ['2', 'in the seed too'],
    ]);
    expect(seed.startVersion).toBe(String(await now()));
    afterFirst(CURRENT_VERSION_SQL, () => commit("INSERT INTO dbo.between VALUES (3, 'in the snapshot, past the window')"));
    const read = await changes(connector, between, seed.startVersion);
    expect(read).toEqual({ toVersion: String(BigInt(seed.startVersion) + 1n), limited: false, rows: [['I', '2', 'in the seed too']] });
    expect((await changes(connector, between, read.toVersion)).rows).toEqual([['I', '3', 'in the snapshot, past the window']]);
  });

  // CHANGETABLE: "When a table is truncated, the change tracking version information that is associated with the table is
  // reset as if change tracking has just been enabled on the table. ... The validation fails if the table has been truncated."
  it('reseeds after a TRUNCATE (the minimum valid version passes the watermark), then tracks from the new seed', async () => {
    const truncated = await trackedTable('truncated', [
      [1, 'a'],
      [2, 'b'],
    ]);
    const connector = source();
    const seed = await connector.readSnapshot(truncated);
    await rowsOf(seed, 0);
    await commit("INSERT INTO dbo.truncated VALUES (3, 'c')");
    await commit('TRUNCATE dbo.truncated');
    expect(await minValidVersion(writers, truncated.table)).toBe(await now());
    const error: unknown = await connector.readChanges(truncated, seed.startVersion, 100).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ChangesPurgedError);
    expect(isEngineError(error, 'changes-purged')).toBe(true);
    const reseed = await connector.readSnapshot(truncated);
    expect(await rowsOf(reseed, 0)).toEqual([]);
    await commit("INSERT INTO dbo.truncated VALUES (4, 'd')");
    expect((await changes(connector, truncated, reseed.startVersion)).rows).toEqual([['I', '4', 'd']]);
  });

  // CHANGE_TRACKING_MIN_VALID_VERSION: "If last_sync_version is less than the value that is reported by this function, the
  // results that are returned from a later call to CHANGETABLE might not be valid" — equal is still valid.
  it('reads on when cleanup stopped at the watermark, and reseeds when it went past it', async () => {
    const cleaned = await trackedTable('cleaned', [[1, 'a']]);
    const connector = source();
    const seed = await connector.readSnapshot(cleaned);
    await rowsOf(seed, 0);
    const last = BigInt(seed.startVersion) - 1n;
    await commit("INSERT INTO dbo.cleaned VALUES (2, 'b')");
    const second = await now();
    await commit("INSERT INTO dbo.cleaned VALUES (3, 'c')");
    await cleanupChanges(writers, cleaned.table, last);
    expect((await changes(connector, cleaned, seed.startVersion)).rows).toEqual([
      ['I', '2', 'b'],
      ['I', '3', 'c'],
    ]);
    expect(await cleanupChanges(writers, cleaned.table, second)).toBeGreaterThan(0);
    await expect(connector.readChanges(cleaned, seed.startVersion, 100)).rejects.toBeInstanceOf(ChangesPurgedError);
    expect((await changes(connector, cleaned, String(second + 1n))).rows).toEqual([['I', '3', 'c']]);
  });

  // CHANGE_TRACKING_MIN_VALID_VERSION is NULL when "the specified table object ID isn't valid" or the table is not tracked.
  it('stops a change read of a table Change Tracking does not track', async () => {
    await writers.query('CREATE TABLE dbo.untracked (id integer PRIMARY KEY, name varchar(40))');
    const connector = source();
    const untracked = await connector.describeTable({ schema: 'dbo', name: 'untracked' });
    await expect(connector.readChanges(untracked!, '1', 100)).rejects.toBeInstanceOf(TableNotTrackedError);
  });

  // Both writers commit in version order (versions are assigned at commit); reads with a small limit run meanwhile, some
  // with the snapshot after the version read. Applied in order, the net changes must give the table.
  it('keeps a copy equal to the table through random concurrent transactions read with a small limit', async () => {
    const seedValue = Number(process.env['CT_EXECUTED_SEED'] ?? Date.now() % 1_000_000);
    const random = seededRandom(seedValue);
    const randomTable = await trackedTable(
      'random',
      Array.from({ length: 12 }, (_, index): [number, string] => [index + 1, `row ${index + 1}`]),
    );
    const connector = source();
    const seed = await connector.readSnapshot(randomTable);
    const copy = new Map((await rowsOf(seed, 0)).map(([id, name]): [string, string | null] => [id ?? '', name ?? null]));
    let watermark = seed.startVersion;
    let writing = 2;
    const writer = async () => {
      const client = await writers.connect();
      try {
        for (let count = 0; count < 120; count += 1) await randomTransaction(client, random);
      } finally {
        client.release();
        writing -= 1;
      }
    };
    let reads = 0;
    const reader = async () => {
      for (;;) {
        const writersDone = writing === 0;
        double.settings.versionReadBeforeSnapshot = random() < 0.5;
        const read = await changes(connector, randomTable, watermark, 3);
        reads += 1;
        expect(BigInt(read.toVersion)).toBeGreaterThanOrEqual(BigInt(watermark));
        expect(new Set(read.rows.map((row) => row[1])).size).toBe(read.rows.length);
        for (const [operation, id, name] of read.rows) {
          if (operation === 'D') copy.delete(id ?? '');
          else copy.set(id ?? '', name ?? null);
        }
        watermark = read.toVersion;
        if (writersDone && !read.limited) return;
        if (!read.limited) await new Promise((resolve) => setTimeout(resolve, 2));
      }
    };
    await Promise.all([writer(), writer(), reader()]);
    const table = (await writers.query<{ id: string; name: string | null }>('SELECT id::text AS id, name FROM dbo.random')).rows;
    const sorted = (rows: [string, string | null][]) => rows.sort((a, b) => Number(a[0]) - Number(b[0]));
    expect({ seed: seedValue, rows: sorted([...copy.entries()]) }).toEqual({ seed: seedValue, rows: sorted(table.map((row) => [row.id, row.name])) });
    expect(reads).toBeGreaterThan(5);
  }, 30_000);

  // "Change Tracking and data restore" (work-with-change-tracking-sql-server): after a restore the current version can be
  // below the version a client synchronised to; the client must reinitialise. Last: it rewinds the whole database's versions.
  it('reseeds when CHANGE_TRACKING_CURRENT_VERSION went below the watermark, and reads on when it equals the watermark less one', async () => {
    const restored = await trackedTable('restored', [[1, 'a']]);
    const connector = source();
    const seed = await connector.readSnapshot(restored);
    await rowsOf(seed, 0);
    const backup = await now();
    await commit("INSERT INTO dbo.restored VALUES (2, 'b')");
    await commit("INSERT INTO dbo.restored VALUES (3, 'c')");
    const read = await changes(connector, restored, seed.startVersion);
    expect(await changes(connector, restored, read.toVersion)).toEqual({ toVersion: read.toVersion, limited: false, rows: [] });
    await restoreVersionsTo(writers, backup);
    const error: unknown = await connector.readChanges(restored, read.toVersion, 100).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(SourceVersionsRewoundError);
    expect((error as Error).message).toContain(`current version ${backup} is below watermark ${read.toVersion}`);
  });
});

describe('the PostgreSQL Change Tracking double', () => {
  it('refuses the statements it does not model instead of answering them', () => {
    const inputs = new Map<string, TsqlInput>([['table', { type: 'text', value: '[dbo].[items]' }]]);
    const unknown = [
      // Statement forms the service does not send.
      'EXEC sp_who',
      "MERGE [dbo].[items] AS t USING (SELECT 1 AS id) AS s ON t.[id] = s.id WHEN MATCHED THEN DELETE;",
      // A function, a conversion and a unit of DATEADD the model has no rule for.
      'SELECT SOUNDEX(t.[name]) AS s FROM [dbo].[items] AS t',
      'SELECT CONVERT(time(7), t.[at]) AS [at] FROM [dbo].[items] AS t',
      'SELECT DATEADD(day, 1, t.[at]) AS [at] FROM [dbo].[items] AS t',
      // A variable no input declares (SQL Server's error 137).
      'SELECT CHANGE_TRACKING_MIN_VALID_VERSION(OBJECT_ID(@other)) AS v',
    ];
    for (const statement of unknown) expect(() => translateTsql(statement, inputs)).toThrow(UntranslatedStatementError);
  });
});

const NAMES: readonly (string | null)[] = ['a', 'b,c', 'say "hi"', '', null, 'two\nlines', 'é', 'x'.repeat(40)];

/** One writer transaction of one to three random statements on dbo.random (keys 1–30), committed or (sometimes) rolled back. */
async function randomTransaction(client: PoolClient, random: () => number): Promise<void> {
  const pick = (count: number) => Math.floor(random() * count);
  try {
    await client.query('BEGIN');
    for (let statement = 1 + pick(3); statement > 0; statement -= 1) {
      const key = 1 + pick(30);
      const name = NAMES[pick(NAMES.length)] ?? null;
      switch (pick(4)) {
        case 0:
          await client.query('INSERT INTO dbo.random VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [key, name]);
          break;
        case 1:
          await client.query('UPDATE dbo.random SET name = $2 WHERE id = $1', [key, name]);
          break;
        case 2:
          await client.query('DELETE FROM dbo.random WHERE id = $1', [key]);
          break;
        default:
          await client.query('UPDATE dbo.random SET id = $2 WHERE id = $1', [key, 1 + pick(30)]);
      }
      if (random() < 0.3) await new Promise((resolve) => setTimeout(resolve, pick(4)));
    }
    await client.query(random() < 0.1 ? 'ROLLBACK' : 'COMMIT');
  } catch {
    // A key taken by a concurrent move, or a deadlock: the transaction is rolled back, as an application's would be.
    await client.query('ROLLBACK');
  }
}

