import type { SourceConnector } from '@svc/engines';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { Client } from 'pg';
import { createPostgresSource } from './postgres-source';
import { keyRangeCondition } from './seed-chunks';
import { readAll } from './testing/source-fixture';

const MEGABYTE = 1024 * 1024;

describe('PostgreSQL source: a seed cut into key-range chunks', () => {
  let database: TempDatabase;
  let source: SourceConnector;
  let client: Client;

  beforeAll(async () => {
    database = await createTempDatabase('svc_srcpg_chunks');
    client = new Client({ connectionString: database.url });
    await client.connect();
    // Rows written in key order, as a bulk load leaves them: a page's keys sit together (what a page sample must not skew).
    await client.query(`create table accounts (id integer primary key, pad text);
      insert into accounts select g, repeat('x', 80) from generate_series(1, 200000) g;
      create table lines (order_id integer, line integer, note text, primary key (order_id, line));
      insert into lines select g / 4, g % 4, repeat('y', 60) from generate_series(1, 120000) g;
      analyze accounts; analyze lines`);
    source = createPostgresSource(database.url, { encrypt: false });
  });

  afterAll(async () => {
    await source?.close();
    await client?.end();
    await database?.drop();
  });

  /** Rows of each chunk, read as the extractor reads a chunk. */
  const chunkRows = async (name: string, chunkBytes: number): Promise<number[]> => {
    const definition = (await source.describeTable({ schema: 'public', name }))!;
    await source.enableTracking(definition);
    const { bounds } = await source.planSeedChunks!(definition, chunkBytes);
    const counts: number[] = [];
    for (let index = 0; index <= bounds.length; index += 1) {
      const snapshot = await source.readSnapshot(definition, { keyRange: { lower: index === 0 ? null : bounds[index - 1], upper: bounds[index] ?? null } });
      counts.push((await readAll(snapshot)).rowCount);
    }
    return counts;
  };

  it.each([
    ['a one-column key', 'accounts', 200000],
    ['a two-column key', 'lines', 120000],
  ])('cuts a table of %s into chunks of about the size asked for, none far from the others, which together hold every row once', async (_title, name, rows) => {
    const counts = await chunkRows(name, MEGABYTE);
    const { rows: size } = await client.query<{ bytes: string }>(`select pg_table_size('${name}') as bytes`);
    expect(counts.length).toBe(Math.ceil(Number(size[0]?.bytes) / MEGABYTE));
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(rows);
    const mean = rows / counts.length;
    expect(Math.max(...counts)).toBeLessThan(2.5 * mean);
  });

  it('keeps a table under the chunk size whole', async () => {
    expect(await chunkRows('lines', 1024 * MEGABYTE)).toEqual([120000]);
  });

  it('reads bounds of every key width as the key compares them', () => {
    const definition = { table: { schema: 'public', name: 'lines' }, columns: [], primaryKey: ['order_id', 'line'] } as never;
    expect(keyRangeCondition(definition, { lower: ['10', '2'], upper: ['20', '0'] })).toBe(`("order_id", "line") >= (E'10', E'2') and ("order_id", "line") < (E'20', E'0')`);
  });
});
