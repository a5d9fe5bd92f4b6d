import { Portable, type BatchDescriptor, type ColumnDefinition, type PortableType, type TableDefinition } from '@svc/contracts';
import { ColumnTypeChangeError, ForeignTableError, type CsvChunks, type StagingConnector } from '@svc/engines';
import { pipelineCsv, type Row } from '@svc/engines/testing';
import { PrivateMariaDb } from '@svc/testing';
import type { RowDataPacket } from 'mysql2';
import { CsvFormatError } from './csv-records';
import { createMysqlStaging } from './mysql-staging';
import { StagingKeyError } from './staging-types';

/**
 * What the staging contract (staging-contract.integration-spec.ts) does not reach, on a live MariaDB: every portable
 * type stored and read back, keys that differ only in trailing blanks, widened columns, a seed's emptying rolled back
 * with its batch, batches longer than one INSERT, keys InnoDB cannot index, and the DDL lock given back.
 */
const REPLICATION = 'r-mysql';
const quoted = (name: string) => `\`${name.split('`').join('``')}\``;
const SYSTEM_DATABASES = ['mysql', 'information_schema', 'performance_schema', 'sys'];

let server: PrivateMariaDb;
let staging: StagingConnector;

beforeAll(async () => {
  server = await PrivateMariaDb.start();
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

beforeEach(async () => {
  const connection = await server.connect();
  try {
    const [rows] = await connection.query<RowDataPacket[]>('SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA');
    for (const row of rows) if (!SYSTEM_DATABASES.includes(String(row['name']))) await connection.query(`DROP DATABASE ${quoted(String(row['name']))}`);
  } finally {
    await connection.end();
  }
  staging = createMysqlStaging(server.url(), { encrypt: false });
});

afterEach(async () => {
  await staging.close();
});

async function query(sql: string, values: unknown[] = []): Promise<RowDataPacket[]> {
  const connection = await server.connect();
  try {
    const [rows] = await connection.query<RowDataPacket[]>({ sql, values, typeCast: (field) => field.string('utf8') });
    return rows;
  } finally {
    await connection.end();
  }
}

const column = (name: string, portableType: PortableType, nullable = true): ColumnDefinition => ({ name, sourceType: 'x', portableType, nullable });
const table = (name: string, columns: ColumnDefinition[], primaryKey: string[]): TableDefinition => ({ table: { schema: 'shop', name }, columns, primaryKey, estimatedRows: 0 });

const seed = (definition: TableDefinition, seedId: string, part = 0, epoch = 1): BatchDescriptor => ({
  batchId: `${REPLICATION}/${definition.table.name}/seed/${seedId}/${part}`,
  replicationId: REPLICATION,
  epoch,
  definition,
  body: { kind: 'seed', seedId, part, final: true, startVersion: '1' },
});
const changes = (definition: TableDefinition, from: number, to: number): BatchDescriptor => ({
  batchId: `${REPLICATION}/${definition.table.name}/changes/${from}-${to}`,
  replicationId: REPLICATION,
  epoch: 1,
  definition,
  body: { kind: 'changes', fromVersion: String(from), toVersion: String(to) },
});

function rowsOf(text: string): CsvChunks {
  return (async function* () {
    yield Buffer.from(text, 'utf8');
  })();
}

async function apply(batch: BatchDescriptor, rows: readonly Row[]) {
  await staging.ensureTable(batch.definition);
  return staging.applyBatch(batch, rowsOf(pipelineCsv(rows)));
}

describe('MySQL staging on MariaDB', () => {
  it('stores every portable type and reads it back as it came (instants as their reading in UTC)', async () => {
    const types = table(
      'every_type',
      [
        column('id', Portable.bigint(), false),
        column('small', Portable.smallint()),
        column('exact', Portable.decimal(65, 30)),
        column('unbounded', Portable.decimal()),
        column('single', Portable.float(4)),
        column('dbl', Portable.float(8)),
        column('name', Portable.varchar(20)),
        column('fixed', Portable.char(4)),
        column('body', Portable.text()),
        column('raw', Portable.binary(8)),
        column('blob', Portable.binary()),
        column('flag', Portable.boolean()),
        column('day', Portable.date()),
        column('moment', Portable.time(6)),
        column('zoned_time', Portable.time(0, true)),
        column('reading', Portable.timestamp(6)),
        column('instant', Portable.timestamp(3, true)),
        column('span', Portable.interval()),
        column('id2', Portable.uuid()),
        column('doc', Portable.json()),
        column('list', Portable.array(Portable.integer())),
        column('inet', Portable.native('postgres', 'inet')),
      ],
      ['id'],
    );
    const row: Row = [
      '9223372036854775807',
      '-32768',
      '-12345678901234567890123456789012345.123456789012345678901234567891',
      `0.${'0'.repeat(99)}1`,
      '0.1',
      '1e+308',
      'ünï "q", ',
      'ab  ',
      'line\nbreak\r\n',
      '\\x00ff10',
      '\\x',
      't',
      '0001-01-01',
      '23:59:59.999999',
      '12:00:00+05:30',
      '9999-12-31 23:59:59.999999',
      '2024-02-29 23:30:00.5+05:30',
      'P1Y2M3DT4H5M6.789S',
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      '{"b": 1, "a": [1, 2]}',
      '{1,NULL,3}',
      '10.0.0.1/8',
    ];
    expect(await apply(seed(types, 'S'), [row, ['1', ...row.slice(1).map(() => null)]])).toEqual({ applied: true, rowCount: 2 });
    const [stored] = await query(
      'SELECT small, exact, unbounded, CAST(single AS DOUBLE) AS single, dbl, name, fixed, body, HEX(raw) AS raw, HEX(`blob`) AS `blob`, flag, day, moment, zoned_time, reading, instant, span, id2, doc, list, inet FROM shop.every_type WHERE id = 9223372036854775807',
    );
    expect(stored).toEqual({
      small: '-32768',
      exact: row[2],
      unbounded: row[3],
      single: '0.10000000149011612',
      dbl: '1e308',
      name: 'ünï "q", ',
      fixed: 'ab  ',
      body: 'line\nbreak\r\n',
      raw: '00FF10',
      blob: '',
      flag: '1',
      day: '0001-01-01',
      moment: '23:59:59.999999',
      zoned_time: '12:00:00+05:30',
      reading: '9999-12-31 23:59:59.999999',
      instant: '2024-02-29 18:00:00.500',
      span: 'P1Y2M3DT4H5M6.789S',
      id2: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      doc: '{"b": 1, "a": [1, 2]}',
      list: '{1,NULL,3}',
      inet: '10.0.0.1/8',
    });
    const [nulls] = await query('SELECT COUNT(*) AS n FROM shop.every_type WHERE id = 1 AND small IS NULL AND body IS NULL AND raw IS NULL AND flag IS NULL AND instant IS NULL');
    expect(nulls).toEqual({ n: '1' });
  });

  it("keeps keys that differ only in trailing blanks apart (a NO PAD collation), and 'a' and 'A'", async () => {
    const codes = table('codes', [column('code', Portable.varchar(10), false), column('label', Portable.text())], ['code']);
    expect(await apply(seed(codes, 'S'), [['a', 'no blank'], ['a ', 'one blank'], ['A', 'capital']])).toEqual({ applied: true, rowCount: 3 });
    expect(await apply(changes(codes, 1, 2), [['U', 'a ', 'one blank, changed'], ['D', 'a', null]])).toEqual({ applied: true, rowCount: 2 });
    const rows = await query('SELECT code, label FROM shop.codes ORDER BY label');
    expect(rows).toEqual([
      { code: 'A', label: 'capital' },
      { code: 'a ', label: 'one blank, changed' },
    ]);
  });

  it('widens a key column and a value column in place, keeping NOT NULL and the logical type; an instant for a reading stops the table', async () => {
    const before = table('widening', [column('code', Portable.varchar(5), false), column('n', Portable.integer()), column('note', Portable.varchar(10)), column('at', Portable.timestamp(3))], ['code']);
    expect(await apply(seed(before, 'S'), [['abcde', '2147483647', 'ten chars!', '2024-01-01 00:00:00.123']])).toEqual({ applied: true, rowCount: 1 });
    const after = { ...before, columns: [column('code', Portable.varchar(9), false), column('n', Portable.bigint()), column('note', Portable.varchar(20)), column('at', Portable.timestamp(6))] };
    expect(await staging.ensureTable(after)).toMatchObject({
      created: false,
      addedColumns: [],
      schemaChanges: [
        'widened column code from varchar(5) to varchar(9) in staging',
        'widened column n from int to bigint in staging',
        'widened column note from varchar(10) to varchar(20) in staging',
        'widened column at from datetime(3) to datetime(6) in staging',
      ],
    });
    expect(await staging.ensureTable(after)).toEqual({ created: false, addedColumns: [] });
    expect(await staging.applyBatch(changes(after, 1, 2), rowsOf(pipelineCsv([['I', 'abcdefghi', '9223372036854775807', 'twenty characters!!!', '2024-01-01 00:00:00.123456']])))).toEqual({ applied: true, rowCount: 1 });
    const columns = await query(
      "SELECT COLUMN_NAME AS name, COLUMN_TYPE AS type, IS_NULLABLE AS nullable, COLUMN_COMMENT AS comment FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'shop' AND TABLE_NAME = 'widening' ORDER BY ORDINAL_POSITION",
    );
    expect(columns).toEqual([
      { name: 'code', type: 'varchar(9)', nullable: 'NO', comment: 'svc:varchar(9)' },
      { name: 'n', type: 'bigint(20)', nullable: 'YES', comment: 'svc:bigint' },
      { name: 'note', type: 'longtext', nullable: 'YES', comment: 'svc:varchar(20)' },
      { name: 'at', type: 'datetime(6)', nullable: 'YES', comment: 'svc:datetime(6)' },
    ]);
    const zoned = { ...after, columns: [...after.columns.slice(0, 3), column('at', Portable.timestamp(6, true))] };
    await expect(staging.ensureTable(zoned)).rejects.toThrow(ColumnTypeChangeError);
  });

  it("a seed's emptying is rolled back with its batch when its rows fail: DELETE, never TRUNCATE (which commits)", async () => {
    const people = table('people', [column('id', Portable.integer(), false), column('name', Portable.text())], ['id']);
    expect(await apply(seed(people, 'S'), [['1', 'Ann']])).toEqual({ applied: true, rowCount: 1 });
    const again = seed(people, 'T', 0, 2);
    await expect(staging.applyBatch(again, rowsOf('"2","Bob"\n"3","unterminated\n'))).rejects.toThrow(CsvFormatError);
    expect(await query('SELECT id, name FROM shop.people')).toEqual([{ id: '1', name: 'Ann' }]);
    expect(await staging.hasApplied(again.batchId)).toBe(false);
    expect(await staging.isStale(seed(people, 'U', 0, 1))).toBe(false);
  });

  it('loads batches longer than one INSERT (1000 rows, 4 MiB of values) whole', async () => {
    const wide = table('wide', [column('id', Portable.integer(), false), column('body', Portable.text())], ['id']);
    const big = 'x'.repeat(20_000);
    const seedRows: Row[] = Array.from({ length: 2500 }, (_, index) => [String(index), index % 10 === 0 ? big : `row ${index}`]);
    expect(await apply(seed(wide, 'S'), seedRows)).toEqual({ applied: true, rowCount: 2500 });
    const changeRows: Row[] = Array.from({ length: 1500 }, (_, index) => (index % 3 === 0 ? ['D', String(index), null] : ['U', String(index), `${big}${index}`]));
    expect(await apply(changes(wide, 1, 2), changeRows)).toEqual({ applied: true, rowCount: 1500 });
    const expected = new Map(seedRows.map(([id, body]) => [String(id), body ?? null]));
    for (const [operation, id, body] of changeRows) {
      if (operation === 'D') expected.delete(String(id));
      else expected.set(String(id), body ?? null);
    }
    const [summary] = await query('SELECT COUNT(*) AS n, SUM(LENGTH(body)) AS characters FROM shop.wide');
    expect(summary).toEqual({ n: String(expected.size), characters: String([...expected.values()].reduce((total, body) => total + (body?.length ?? 0), 0)) });
    const [sample] = await query('SELECT body FROM shop.wide WHERE id = 1');
    expect(sample).toEqual({ body: `${big}1` });
  });

  it('refuses a key InnoDB cannot index whole before creating anything, naming table and column', async () => {
    const unbounded = table('notes', [column('body', Portable.text(), false), column('n', Portable.integer())], ['body']);
    await expect(staging.ensureTable(unbounded)).rejects.toThrow(StagingKeyError);
    await expect(staging.ensureTable(unbounded)).rejects.toThrow(/\[shop\]\.\[notes\].*key column body/);
    expect(await query("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'shop'")).toEqual([]);
    expect(await query('SELECT * FROM svc_staging.owned_tables')).toEqual([]);
  });

  it("leaves a table it did not create alone (ForeignTableError), and gives the DDL lock back after each ensureTable", async () => {
    await server.execute('CREATE DATABASE shop; CREATE TABLE shop.mine (id INT PRIMARY KEY)');
    const mine = table('mine', [column('id', Portable.integer(), false)], ['id']);
    await expect(staging.ensureTable(mine)).rejects.toThrow(ForeignTableError);
    const ours = table('ours', [column('id', Portable.integer(), false)], ['id']);
    expect(await staging.ensureTable(ours)).toMatchObject({ created: true });
    expect(await query("SELECT IS_FREE_LOCK('svc_staging.ddl') AS free")).toEqual([{ free: '1' }]);
  });
});
