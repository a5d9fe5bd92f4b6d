import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { interchangeTextProblem, type TableDefinition } from '@svc/contracts';
import type { SourceConnector } from '@svc/engines';
import { createTempDatabase, waitUntil, type TempDatabase } from '@svc/testing';
import { RowStreamAbandonedError } from '@svc/postgres/common';
import { createPostgresSource } from './postgres-source';
import { parseCsv, readAll, withClient } from './testing/source-fixture';
import { portableTypeOfPostgres } from '@svc/postgres/common';

const MEGABYTE_TEXT = 'ab€😀'.repeat(100_000);

describe('PostgreSQL source: snapshot', () => {
  let database: TempDatabase;
  let source: SourceConnector;
  let everything: TableDefinition;

  beforeAll(async () => {
    database = await createTempDatabase('svc_srcpg_snap');
    await withClient(database.url, async (client) => {
      // Odd session defaults: the snapshot must not depend on them.
      await client.query(`alter database "${database.name}" set timezone to 'America/St_Johns'`);
      await client.query(`alter database "${database.name}" set datestyle to 'SQL, DMY'`);
      await client.query(`alter database "${database.name}" set intervalstyle to 'sql_standard'`);
      await client.query(`alter database "${database.name}" set bytea_output to 'escape'`);
      await client.query(`alter database "${database.name}" set extra_float_digits to -3`);
      await client.query(`
        create type mood as enum ('sad', 'ok', 'happy');
        create table everything (
          id integer primary key,
          label text,
          big_text text,
          amount numeric(38,10),
          at timestamptz,
          local_at timestamp,
          day date,
          span interval,
          ratio double precision,
          blob bytea,
          ident uuid,
          doc jsonb,
          tags text[],
          grid integer[][],
          mood mood,
          moods mood[],
          flag boolean
        );
        insert into everything values
          (1, 'plain', 'short', 1234567890123456789012345678.0123456789, '2024-02-29 23:59:59.123456+00', '2024-02-29 23:59:59.5', '0044-03-15',
           '1 year 2 mons 3 days 04:05:06.789', 0.1, '\\x00ff10', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": [1, "x", null], "b": {"c": "ü"}}',
           array['a', 'b,c', 'd"e', '', null], array[[1, 2], [3, 4]], 'happy', array['sad', 'ok']::mood[], true),
          (2, '', null, -0.0000000001, '1970-01-01 00:00:00+00', null, null, '-1 days', 1e308, '\\x', '00000000-0000-0000-0000-000000000000', '[]',
           '{}', null, 'sad', '{}', false),
          (3, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null),
          (4, 'emoji 😀🎉 and "quotes", commas
and a newline', 'x', 99999999999999999999999999.9999999999, 'infinity', '-infinity', 'infinity', '0', 'NaN', '\\x5c2c22', 'ffffffff-ffff-ffff-ffff-ffffffffffff',
           '"just a string"', array['😀'], array[]::integer[], 'ok', array[null]::mood[], null);
        create table nokey (n integer, t text);
        insert into nokey select g, 'row ' || g from generate_series(1, 2000) g;
      `);
      await client.query('insert into everything (id, big_text) values (5, $1)', [MEGABYTE_TEXT]);
    });
    source = createPostgresSource(database.url, { encrypt: false });
    everything = (await source.describeTable({ schema: 'public', name: 'everything' }))!;
    await source.enableTracking(everything);
  });

  afterAll(async () => {
    await source.close();
    await database.drop();
  });

  it('streams every row as CSV that COPY reads back into an equal table', async () => {
    const snapshot = await source.readSnapshot(everything);
    expect(snapshot.startVersion).toMatch(/^[1-9][0-9]*$/);
    const { csv, rowCount } = await readAll(snapshot);
    expect(rowCount).toBe(5);

    await withClient(database.url, async (client) => {
      await client.query('create table everything_copy (like everything including all)');
      await pipeline(Readable.from([Buffer.from(csv, 'utf8')]), client.query(copyFrom('copy everything_copy from stdin (format csv)')));
      const missing = await client.query('select id from (table everything except table everything_copy) d');
      const extra = await client.query('select id from (table everything_copy except table everything) d');
      expect(missing.rows).toEqual([]);
      expect(extra.rows).toEqual([]);
      const count = await client.query<{ n: number }>('select count(*)::int as n from everything_copy');
      expect(count.rows[0]?.n).toBe(5);
    });
  });

  it('writes the row format the pipeline expects whatever the session defaults', async () => {
    const rows = parseCsv((await readAll(await source.readSnapshot(everything))).csv);
    const byId = new Map(rows.map((row) => [row[0], row]));
    const first = byId.get('1')!;
    expect(first.slice(3, 10)).toEqual([
      '1234567890123456789012345678.0123456789',
      '2024-02-29 23:59:59.123456+00',
      '2024-02-29 23:59:59.5',
      '0044-03-15',
      'P1Y2M3DT4H5M6.789S',
      '0.1',
      '\\x00ff10',
    ]);
    expect(first.slice(12, 16)).toEqual(['{a,"b,c","d\\"e","",NULL}', '{{1,2},{3,4}}', 'happy', '{sad,ok}']);
    const second = byId.get('2')!;
    expect(second[1]).toBe('');
    expect(second[2]).toBeNull();
    expect(byId.get('3')!.slice(1)).toEqual(Array.from({ length: 16 }, () => null));
    expect(byId.get('4')![1]).toBe('emoji 😀🎉 and "quotes", commas\nand a newline');
    expect(byId.get('5')![2]).toBe(MEGABYTE_TEXT);
  });

  it('writes every field in the row interchange format of its column\'s portable type (docs/ROW-FORMAT.md)', async () => {
    const rows = parseCsv((await readAll(await source.readSnapshot(everything))).csv);
    const problems = rows.flatMap((row) =>
      everything.columns.flatMap((column, index) => {
        const field = row[index];
        const problem = field === null || field === undefined ? null : interchangeTextProblem(column.portableType, field);
        return problem === null ? [] : [`row ${row[0]} ${column.name} ${JSON.stringify(field?.slice(0, 40))}: ${problem}`];
      }),
    );
    expect(problems).toEqual([]);
    expect(everything.columns.map((column) => column.portableType.kind)).toEqual(
      ['integer', 'text', 'text', 'decimal', 'timestamp', 'timestamp', 'date', 'interval', 'float', 'binary', 'uuid', 'json', 'array', 'array', 'text', 'array', 'boolean'],
    );
  });

  it('reads one consistent snapshot: a later commit is left to change tracking from startVersion', async () => {
    const snapshot = await source.readSnapshot(everything);
    await withClient(database.url, (client) => client.query("insert into everything (id, label) values (100, 'after the snapshot')"));
    const rows = parseCsv((await readAll(snapshot)).csv);
    expect(rows.map((row) => row[0])).not.toContain('100');

    try {
      // A change read ends below every transaction still open on the server (its snapshot's xmin), so a
      // transaction that another client holds open elsewhere delays the insert's visibility, never loses it.
      let changed: ReturnType<typeof parseCsv> = [];
      await waitUntil(
        async () => {
          changed = parseCsv((await readAll(await source.readChanges(everything, snapshot.startVersion, 1000))).csv);
          return changed.length > 0;
        },
        30_000,
        'the insert after the snapshot to reach change tracking',
      );
      expect(changed).toEqual([['I', '100', 'after the snapshot', ...Array.from({ length: 15 }, () => null)]]);
    } finally {
      await withClient(database.url, (client) => client.query('delete from everything where id = 100'));
    }
  });

  it('seeds a table without a primary key', async () => {
    const nokey = (await source.describeTable({ schema: 'public', name: 'nokey' }))!;
    const { csv, rowCount } = await readAll(await source.readSnapshot(nokey));
    expect(rowCount).toBe(2000);
    expect(parseCsv(csv)).toHaveLength(2000);
  });

  it('lets go of the connection when the consumer stops reading early', async () => {
    const applicationName = `svc_srcpg_abandon_${process.pid}`;
    const url = `${database.url}?application_name=${applicationName}`;
    const abandoning = createPostgresSource(url, { encrypt: false, maxConnections: 1 });
    try {
      const sessions = () =>
        withClient(database.url, async (client) => {
          const result = await client.query<{ n: number }>(
            "select count(*)::int as n from pg_stat_activity where application_name = $1 and state <> 'idle'",
            [applicationName],
          );
          return result.rows[0]?.n ?? -1;
        });
      const nokey = (await abandoning.describeTable({ schema: 'public', name: 'nokey' }))!;
      const snapshot = await abandoning.readSnapshot(nokey);
      for await (const chunk of snapshot.rows) {
        expect(chunk.length).toBeGreaterThan(0);
        break;
      }
      await expect(snapshot.finished).rejects.toBeInstanceOf(RowStreamAbandonedError);
      await waitUntil(async () => (await sessions()) === 0, 5000, 'the abandoned snapshot session to end');
      // With one connection in the pool, this only works if the abandoned one was given back.
      const again = await readAll(await abandoning.readSnapshot(nokey));
      expect(again.rowCount).toBe(2000);
    } finally {
      await abandoning.close();
    }
  });

  it('rejects `finished` when the COPY fails and gives the connection back', async () => {
    // A role that may read only the key column: the definition check passes (the catalog is public), the COPY is refused.
    const role = `svc_snap_limited_${process.pid}`;
    await withClient(database.url, (client) => client.query(`create role ${role} login; grant select (id) on everything to ${role}`));
    const url = new URL(database.url);
    url.username = role;
    url.password = '';
    const limited = createPostgresSource(url.toString(), { encrypt: false, maxConnections: 1 });
    try {
      const snapshot = await limited.readSnapshot(everything);
      await expect(readAll(snapshot)).rejects.toThrow(/permission denied/);
      await expect(snapshot.finished).rejects.toThrow(/permission denied/);
      const keyOnly: TableDefinition = { ...everything, columns: everything.columns.filter((column) => column.name === 'id') };
      expect((await readAll(await limited.readSnapshot(keyOnly, { columnsProjected: true }))).rowCount).toBe(5);
    } finally {
      await limited.close();
      await withClient(database.url, (client) => client.query(`drop owned by ${role}; drop role ${role}`));
    }
  });

  it('refuses a definition that names a column the table does not have, before reading a row', async () => {
    const broken: TableDefinition = { ...everything, columns: [...everything.columns, { name: 'gone', sourceType: 'text', portableType: portableTypeOfPostgres('text'), nullable: true }] };
    await expect(source.readSnapshot(broken)).rejects.toThrow(/gone no longer exist/);
    expect((await readAll(await source.readSnapshot(everything))).rowCount).toBe(5);
  });
});
