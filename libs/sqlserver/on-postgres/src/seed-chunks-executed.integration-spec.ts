import type { TableDefinition } from '@svc/contracts';
import type { RowStream, SourceConnector } from '@svc/engines';
import { csvRows, serveSqlServerConnectionsForTests } from '@svc/sqlserver/common';
import { createSqlServerSource } from '@svc/sqlserver/source';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { Pool } from 'pg';
import { enableTableTracking, installChangeTrackingModel } from './change-tracking-model';
import { MssqlPoolOnPostgres } from './pool-on-postgres';

/*
 * The SQL Server source's chunked seed, executed: planSeedChunks' size query, page sample and bucket starts, and each
 * chunk's key-range read run, translated, against the PostgreSQL model of SQL Server (as change-tracking-executed does),
 * whose TABLESAMPLE SYSTEM takes whole pages as SQL Server's does.
 */
const double: { url: string; pools: MssqlPoolOnPostgres[] } = { url: '', pools: [] };

serveSqlServerConnectionsForTests(() => {
  const pool = new MssqlPoolOnPostgres(double.url, {});
  double.pools.push(pool);
  return Promise.resolve(pool.connectionPool);
});

const MEGABYTE = 1024 * 1024;

let database: TempDatabase;
let writers: Pool;
let connector: SourceConnector;

beforeAll(async () => {
  database = await createTempDatabase('ct_chunks');
  double.url = database.url;
  writers = new Pool({ connectionString: database.url, max: 2 });
  await installChangeTrackingModel(writers, 'recovery fork 6F9619FF-8B86-D011-B42D-00C04FC964FF, database 0E984725-C51C-4BF4-9960-E1C80E27ABA0');
  // Rows written in key order, as a bulk load leaves them: a page's keys sit together (what a page sample must not skew).
  await writers.query(`CREATE SCHEMA dbo;
    CREATE TABLE dbo.accounts (id integer PRIMARY KEY, pad varchar(100));
    INSERT INTO dbo.accounts SELECT g, repeat('x', 80) FROM generate_series(1, 60000) g;
    CREATE TABLE dbo.lines (order_code varchar(20), line integer, note varchar(80), PRIMARY KEY (order_code, line));
    INSERT INTO dbo.lines SELECT 'order-' || lpad((g / 4)::text, 6, '0'), g % 4, repeat('y', 60) FROM generate_series(1, 40000) g;
    CREATE TABLE dbo.readings (value double precision PRIMARY KEY, pad varchar(100));
    INSERT INTO dbo.readings SELECT g / 7.0, repeat('z', 80) FROM generate_series(1, 20000) g;
    ANALYZE dbo.accounts; ANALYZE dbo.lines; ANALYZE dbo.readings`);
  for (const name of ['accounts', 'lines', 'readings']) await enableTableTracking(writers, { schema: 'dbo', name });
  connector = createSqlServerSource('Server=sql.example.com;Database=shop;User Id=replicator;Password=x', { encrypt: true });
});

afterAll(async () => {
  await connector?.close();
  await writers?.end();
  await database?.drop();
});

// Every statement the source sent was one the model knows, and every SNAPSHOT transaction ended.
afterEach(() => {
  const pools = double.pools;
  expect(pools.flatMap((pool) => pool.refused)).toEqual([]);
  expect(pools.map((pool) => pool.openTransactions)).toEqual(pools.map(() => 0));
});

async function definitionOf(name: string): Promise<TableDefinition> {
  const definition = await connector.describeTable({ schema: 'dbo', name });
  if (!definition) throw new Error(`the source does not see dbo.${name}`);
  return definition;
}

async function keysOf(read: RowStream, width: number): Promise<string[]> {
  const keys: string[] = [];
  for await (const row of csvRows(read.rows)) keys.push(JSON.stringify(row.slice(0, width)));
  await read.finished;
  return keys;
}

/** Each chunk's keys, read as the extractor reads a chunk. */
async function chunkKeys(definition: TableDefinition, chunkBytes: number): Promise<string[][]> {
  const { bounds } = await connector.planSeedChunks!(definition, chunkBytes);
  const chunks: string[][] = [];
  for (let index = 0; index <= bounds.length; index += 1) {
    const read = await connector.readSnapshot(definition, { keyRange: { lower: index === 0 ? null : (bounds[index - 1] ?? null), upper: bounds[index] ?? null } });
    chunks.push(await keysOf(read, definition.primaryKey.length));
  }
  return chunks;
}

describe('SQL Server source: a seed cut into key-range chunks (on the PostgreSQL model)', () => {
  it.each([
    ['a one-column integer key', 'accounts', 60000],
    ['a two-column key led by a varchar', 'lines', 40000],
  ])('cuts a table of %s into chunks of about the size asked for, none far from the others, which together hold every row once', async (_title, name, rows) => {
    const definition = await definitionOf(name);
    const chunks = await chunkKeys(definition, MEGABYTE / 2);
    const { rows: size } = await writers.query<{ bytes: string }>(`SELECT pg_table_size('dbo.${name}') AS bytes`);
    expect(chunks.length).toBe(Math.ceil(Number(size[0]?.bytes) / (MEGABYTE / 2)));
    const keys = chunks.flat();
    expect(keys.length).toBe(rows);
    expect(new Set(keys).size).toBe(rows);
    const mean = rows / chunks.length;
    expect(Math.max(...chunks.map((chunk) => chunk.length))).toBeLessThan(2.5 * mean);
  });

  it('keeps a table under the chunk size whole, and a key the service cannot cut into ranges (float) whole whatever its size', async () => {
    expect((await connector.planSeedChunks!(await definitionOf('accounts'), 1024 * MEGABYTE)).bounds).toEqual([]);
    expect((await connector.planSeedChunks!(await definitionOf('readings'), 1024)).bounds).toEqual([]);
  });

  it('takes the capture horizon before any chunk: a change committed after the plan is read from its start version', async () => {
    const definition = await definitionOf('accounts');
    const plan = await connector.planSeedChunks!(definition, MEGABYTE / 2);
    await writers.query(`UPDATE dbo.accounts SET pad = 'changed' WHERE id = 30001`);
    const read = await connector.readChanges(definition, plan.startVersion, 1000);
    const changed: (string | null)[][] = [];
    for await (const row of csvRows(read.rows)) changed.push(row);
    await read.finished;
    expect(changed).toEqual([['U', '30001', 'changed']]);
  });
});
