import { interchangeTextProblem, type TableDefinition } from '@svc/contracts';
import { ChangesPurgedError, StaleDefinitionError, abandonRowStream } from '@svc/engines';
import type { CsvChunks, SourceConnector } from '@svc/engines';
import { PrivateMariaDb } from '@svc/testing';
import { createMysqlSource } from './mysql-source';
import { TableRewrittenError } from './source-errors';

let server: PrivateMariaDb;
let source: SourceConnector;

const TYPES_TABLE = `CREATE TABLE shop.every_type (
  id BIGINT UNSIGNED PRIMARY KEY,
  small_signed TINYINT, small_unsigned TINYINT UNSIGNED, medium MEDIUMINT, whole INT UNSIGNED, big BIGINT,
  exact DECIMAL(65,30), single FLOAT, dbl DOUBLE,
  flag BIT(1), bits BIT(10), yr YEAR,
  day DATE, moment DATETIME(6), stamp TIMESTAMP(3) NULL, span TIME(2),
  fixed CHAR(4), name VARCHAR(20) CHARACTER SET utf8mb3, latin VARCHAR(10) CHARACTER SET latin1, body TEXT, binname VARCHAR(10) COLLATE utf8mb4_bin,
  size ENUM('small','large'), tags SET('a','b','c'), doc JSON, shape GEOMETRY, raw VARBINARY(8), pad BINARY(4), blobby BLOB
)`;

beforeAll(async () => {
  server = await PrivateMariaDb.start();
  await server.execute(`CREATE DATABASE shop; SET GLOBAL sql_mode = ''; ${TYPES_TABLE};`);
  source = createMysqlSource(server.url('shop'), { encrypt: false });
}, 120_000);

afterAll(async () => {
  await source?.close();
  await server?.stop();
});

async function text(chunks: CsvChunks): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts).toString('utf8');
}

/** The records of the row format: RFC 4180 fields, an unquoted empty field NULL. */
function records(csv: string): (string | null)[][] {
  const rows: (string | null)[][] = [];
  let row: (string | null)[] = [];
  let field = '';
  let quoted = false;
  let inQuotes = false;
  for (let index = 0; index < csv.length; index += 1) {
    const character = csv[index] ?? '';
    if (inQuotes) {
      if (character === '"' && csv[index + 1] === '"') {
        field += '"';
        index += 1;
      } else if (character === '"') inQuotes = false;
      else field += character;
    } else if (character === '"') {
      inQuotes = true;
      quoted = true;
    } else if (character === ',' || character === '\n') {
      row.push(field === '' && !quoted ? null : field);
      field = '';
      quoted = false;
      if (character === '\n') {
        rows.push(row);
        row = [];
      }
    } else field += character;
  }
  return rows;
}

async function definitionOf(name: string): Promise<TableDefinition> {
  const definition = await source.describeTable({ schema: 'shop', name });
  if (definition === null) throw new Error(`no table ${name}`);
  return definition;
}

describe('the MySQL source on MariaDB', () => {
  it('describes every type with its portable type, and reads each value as the row format\'s text, never through a number or a Date', async () => {
    await server.execute(`INSERT INTO shop.every_type VALUES
      (18446744073709551615, -128, 255, -8388608, 4294967295, -9223372036854775808,
       '-12345678901234567890123456789012345.123456789012345678901234567890', 1.2345678, 0.30000000000000004e0,
       b'1', b'1010101010', 2155, '2024-02-29', '2024-02-29 23:59:59.999999', '2038-01-19 03:14:07.5', '-838:59:59.99',
       'ab', 'żółw', 'café', 'line1\nline2, "quoted"', 'ABC', 'large', 'a,c', '{"k": [1, 2.50]}', ST_GeomFromText('POINT(1 2)'), 0x00ff, 0x01, ''),
      (1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, '0000-00-00', '2024-00-10 00:00:00', NULL, '00:00:00', '', '', '', '', '', NULL, '', NULL, NULL, NULL, NULL, NULL)`, 'shop');
    const definition = await definitionOf('every_type');
    expect(definition.primaryKey).toEqual(['id']);
    const types = Object.fromEntries(definition.columns.map((column) => [column.name, column.portableType]));
    expect(types).toMatchObject({
      id: { kind: 'decimal', precision: 20, scale: 0 },
      small_signed: { kind: 'integer', bytes: 2 },
      whole: { kind: 'integer', bytes: 8 },
      exact: { kind: 'decimal', precision: 65, scale: 30 },
      single: { kind: 'float', bytes: 4 },
      flag: { kind: 'boolean' },
      bits: { kind: 'binary', length: 2, fixed: true },
      stamp: { kind: 'timestamp', precision: 3, zone: true },
      span: { kind: 'interval' },
      doc: { kind: 'json' },
      shape: { kind: 'binary' },
      pad: { kind: 'binary', length: 4, fixed: true },
    });
    await source.enableTracking(definition);
    const read = await source.readSnapshot(definition);
    const rows = records(await text(read.rows));
    expect((await read.finished).rowCount).toBe(2);
    expect(read.startVersion).toMatch(/^\d+$/);
    const byId = new Map(rows.map((row) => [row[0], Object.fromEntries(definition.columns.map((column, index) => [column.name, row[index]]))]));
    expect(byId.get('18446744073709551615')).toEqual({
      id: '18446744073709551615',
      small_signed: '-128',
      small_unsigned: '255',
      medium: '-8388608',
      whole: '4294967295',
      big: '-9223372036854775808',
      exact: '-12345678901234567890123456789012345.123456789012345678901234567890',
      single: '1.2345678',
      dbl: '0.30000000000000004',
      flag: 't',
      bits: '\\x02aa',
      yr: '2155',
      day: '2024-02-29',
      moment: '2024-02-29 23:59:59.999999',
      stamp: '2038-01-19 03:14:07.500+00',
      span: 'PT-838H-59M-59.99S',
      fixed: 'ab',
      name: 'żółw',
      latin: 'café',
      body: 'line1\nline2, "quoted"',
      binname: 'ABC',
      size: 'large',
      tags: 'a,c',
      doc: '{"k": [1, 2.50]}',
      shape: '\\x000000000101000000000000000000f03f0000000000000040',
      raw: '\\x00ff',
      pad: '\\x01000000',
      blobby: '\\x',
    });
    expect(byId.get('1')).toMatchObject({ yr: '0', day: null, moment: null, span: 'PT0H0M0S', fixed: '', name: '', size: null, tags: '', doc: null });
    for (const row of rows) {
      definition.columns.forEach((column, index) => {
        const value = row[index];
        if (value !== null && value !== undefined) expect({ column: column.name, problem: interchangeTextProblem(column.portableType, value) }).toEqual({ column: column.name, problem: null });
      });
    }
  }, 60_000);

  /** The table's rows after applying a change read to a seed's (by key: the first `keyWidth` fields). */
  function applied(seed: (string | null)[][], changes: (string | null)[][], keyWidth: number): Map<string, (string | null)[]> {
    const rows = new Map(seed.map((row) => [JSON.stringify(row.slice(0, keyWidth)), row]));
    for (const [op, ...fields] of changes) {
      const key = JSON.stringify(fields.slice(0, keyWidth));
      if (op === 'D') rows.delete(key);
      else rows.set(key, fields);
    }
    return rows;
  }

  async function snapshotOf(definition: TableDefinition): Promise<{ rows: (string | null)[][]; version: string }> {
    const read = await source.readSnapshot(definition);
    return { rows: records(await text(read.rows)), version: read.startVersion };
  }

  async function changesOf(definition: TableDefinition, from: string, limit = 10_000): Promise<{ rows: (string | null)[][]; to: string; limited: boolean }> {
    const read = await source.readChanges(definition, from, limit);
    const rows = records(await text(read.rows));
    expect((await read.finished).rowCount).toBe(rows.length);
    return { rows, to: read.toVersion, limited: read.limited };
  }

  it('follows inserts, updates, deletes, key updates and a multi-row transaction from the seed\'s position to exactly the table', async () => {
    await server.execute(
      `CREATE TABLE shop.orders (region CHAR(2), id INT, note VARCHAR(40) COLLATE utf8mb4_general_ci, amount DECIMAL(10,2), PRIMARY KEY (region, id));
       INSERT INTO shop.orders VALUES ('eu', 1, 'one', 1.00), ('eu', 2, 'two', 2.00), ('us', 1, 'three', 3.00);`,
      'shop',
    );
    const definition = await definitionOf('orders');
    await source.enableTracking(definition);
    const seed = await snapshotOf(definition);
    await server.execute(
      `INSERT INTO shop.orders VALUES ('eu', 3, 'four', 4.00);
       UPDATE shop.orders SET amount = 20.50 WHERE region = 'eu' AND id = 2;
       DELETE FROM shop.orders WHERE region = 'us' AND id = 1;
       UPDATE shop.orders SET id = 10 WHERE region = 'eu' AND id = 1;
       START TRANSACTION; INSERT INTO shop.orders VALUES ('jp', 1, 'a', 1), ('jp', 2, 'b', 2); UPDATE shop.orders SET note = 'changed' WHERE region = 'jp'; DELETE FROM shop.orders WHERE region = 'jp' AND id = 2; COMMIT;
       INSERT INTO shop.orders VALUES ('us', 1, 'back', 9.99);`,
      'shop',
    );
    const changes = await changesOf(definition, seed.version);
    expect(changes.limited).toBe(false);
    expect(BigInt(changes.to)).toBeGreaterThan(BigInt(seed.version));
    const now = await snapshotOf(definition);
    expect([...applied(seed.rows, changes.rows, 2).values()].sort()).toEqual(now.rows.sort());
    expect(changes.rows).toEqual(expect.arrayContaining([['D', 'eu', '1', null, null], ['D', 'jp', '2', null, null], ['U', 'eu', '10', 'one', '1.00'], ['U', 'us', '1', 'back', '9.99']]));
    const again = await changesOf(definition, changes.to);
    expect(again).toEqual({ rows: [], to: changes.to, limited: false });
  }, 60_000);

  it('deletes the old key when a key changes only in case under a case-insensitive collation', async () => {
    await server.execute(`CREATE TABLE shop.people (login VARCHAR(20) COLLATE utf8mb4_general_ci PRIMARY KEY, age INT); INSERT INTO shop.people VALUES ('abc', 1);`, 'shop');
    const definition = await definitionOf('people');
    const seed = await snapshotOf(definition);
    await server.execute(`UPDATE shop.people SET login = 'ABC' WHERE login = 'abc'`, 'shop');
    const changes = await changesOf(definition, seed.version);
    expect(changes.rows.sort()).toEqual([['D', 'abc', null], ['U', 'ABC', '1']]);
  }, 60_000);

  it('stops at the record limit after a whole transaction, and goes on from there', async () => {
    await server.execute('CREATE TABLE shop.counts (id INT PRIMARY KEY, n INT)', 'shop');
    const definition = await definitionOf('counts');
    const seed = await snapshotOf(definition);
    await server.execute(
      `INSERT INTO shop.counts VALUES (1, 1); INSERT INTO shop.counts VALUES (2, 1);
       START TRANSACTION; INSERT INTO shop.counts VALUES (3, 1), (4, 1), (5, 1); COMMIT;
       INSERT INTO shop.counts VALUES (6, 1);`,
      'shop',
    );
    const first = await changesOf(definition, seed.version, 2);
    expect(first.limited).toBe(true);
    expect(first.rows.map((row) => row[1]).sort()).toEqual(['1', '2']);
    const second = await changesOf(definition, first.to, 2);
    expect(second.limited).toBe(true);
    expect(second.rows.map((row) => row[1]).sort()).toEqual(['3', '4', '5']);
    const third = await changesOf(definition, second.to, 2);
    expect(third.limited).toBe(false);
    expect(third.rows.map((row) => row[1])).toEqual(['6']);
  }, 60_000);

  it('says a column added at the end is a stale definition, then reads across it; a truncate reseeds', async () => {
    await server.execute(`CREATE TABLE shop.grow (id INT PRIMARY KEY, a INT); INSERT INTO shop.grow VALUES (1, 1);`, 'shop');
    const before = await definitionOf('grow');
    const seed = await snapshotOf(before);
    await server.execute(`INSERT INTO shop.grow VALUES (2, 2); ALTER TABLE shop.grow ADD COLUMN b VARCHAR(5) DEFAULT 'x'; INSERT INTO shop.grow VALUES (3, 3, 'y');`, 'shop');
    await expect(source.readChanges(before, seed.version, 100)).rejects.toBeInstanceOf(StaleDefinitionError);
    const after = await definitionOf('grow');
    const changes = await changesOf(after, seed.version);
    expect(changes.rows.sort()).toEqual([['I', '2', '2', 'x'], ['I', '3', '3', 'y']]);
    await server.execute('TRUNCATE TABLE shop.grow', 'shop');
    await expect(source.readChanges(after, changes.to, 100)).rejects.toBeInstanceOf(TableRewrittenError);
  }, 60_000);

  it('tells which tables changed past their watermarks in one read, and reseeds a watermark whose log was purged', async () => {
    await server.execute('CREATE TABLE shop.quiet (id INT PRIMARY KEY); CREATE TABLE shop.busy (id INT PRIMARY KEY);', 'shop');
    const quiet = await snapshotOf(await definitionOf('quiet'));
    const busy = await snapshotOf(await definitionOf('busy'));
    await server.execute('INSERT INTO shop.busy VALUES (1)', 'shop');
    const probe = await source.changedTables(
      [
        { table: { schema: 'shop', name: 'quiet' }, version: quiet.version },
        { table: { schema: 'shop', name: 'busy' }, version: busy.version },
        { table: { schema: 'shop', name: 'gone' }, version: busy.version },
      ],
      { schemaStamps: true },
    );
    expect(probe.changed).toEqual([{ schema: 'shop', name: 'busy' }]);
    expect(probe.unknown).toEqual([{ schema: 'shop', name: 'gone' }]);
    expect(probe.schemaStamps.map((entry) => entry.table.name).sort()).toEqual(['busy', 'quiet']);
    await server.execute('FLUSH BINARY LOGS; FLUSH BINARY LOGS;');
    // PURGE passes over a file a dump thread still reads: the probe's ended dump may take a moment to go.
    const logs = await server.connect();
    try {
      for (let attempt = 0; attempt < 50; attempt += 1) {
        const [rows] = await logs.query('SHOW BINARY LOGS');
        const names = (rows as { Log_name: string }[]).map((row) => row.Log_name);
        if (names.length === 1) break;
        await logs.query(`PURGE BINARY LOGS TO '${names.at(-1) ?? ''}'`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    } finally {
      await logs.end();
    }
    await expect(source.readChanges(await definitionOf('quiet'), quiet.version, 100)).rejects.toBeInstanceOf(ChangesPurgedError);
    expect(BigInt((await source.minValidVersion({ schema: 'shop', name: 'quiet' })) ?? '0')).toBeGreaterThan(BigInt(quiet.version));
  }, 60_000);

  // A probe of an idle table reads on from where the last one found nothing (ProbeMemo), not from its last change again:
  // what it skips must never hide the table's own change, nor one found before its cycle has moved the watermark.
  it('probes an idle table again and again beside a busy one, and still finds its change, until its cycle moves it, and an added column', async () => {
    await server.execute('CREATE TABLE shop.idle (id INT PRIMARY KEY, v INT); CREATE TABLE shop.noise (id INT PRIMARY KEY);', 'shop');
    const idle = await definitionOf('idle');
    const { version } = await snapshotOf(idle);
    const probe = async (at: string) => (await source.changedTables([{ table: idle.table, version: at }], { schemaStamps: false })).changed.map((table) => table.name);
    for (let round = 0; round < 3; round += 1) {
      await server.execute(`INSERT INTO shop.noise SELECT seq + ${round * 1000} FROM seq_1_to_300`, 'shop');
      expect(await probe(version)).toEqual([]);
    }
    await server.execute('INSERT INTO shop.idle VALUES (1, 1)', 'shop');
    expect(await probe(version)).toEqual(['idle']);
    await server.execute(`INSERT INTO shop.noise SELECT seq + 5000 FROM seq_1_to_300`, 'shop');
    expect(await probe(version)).toEqual(['idle']);

    const cycled = await changesOf(idle, version);
    expect(cycled.rows).toEqual([['I', '1', '1']]);
    await server.execute(`INSERT INTO shop.noise SELECT seq + 6000 FROM seq_1_to_300`, 'shop');
    expect(await probe(cycled.to)).toEqual([]);
    await server.execute('ALTER TABLE shop.idle ADD COLUMN w INT', 'shop');
    expect(await probe(cycled.to)).toEqual(['idle']);
    // Without stamps the probe reads the tables' names only: a table dropped is still told apart.
    const gone = await source.changedTables([{ table: { schema: 'shop', name: 'never_made' }, version: cycled.to }], { schemaStamps: false });
    expect(gone).toEqual({ changed: [], unknown: [{ schema: 'shop', name: 'never_made' }], schemaStamps: [] });
  }, 60_000);

  it('cuts a seed into key ranges whose chunks together read exactly the table, composite and text keys among them', async () => {
    const values = Array.from({ length: 3000 }, (_, index) => `('k${String(index % 7)}', ${index}, REPEAT('x', 200))`).join(', ');
    await server.execute(`CREATE TABLE shop.chunked (code VARCHAR(10), n INT, pad TEXT, PRIMARY KEY (code, n)); INSERT INTO shop.chunked VALUES ${values}; ANALYZE TABLE shop.chunked;`, 'shop');
    const definition = await definitionOf('chunked');
    const plan = await source.planSeedChunks?.(definition, 64 * 1024);
    if (plan === undefined) throw new Error('the MySQL source plans chunked seeds');
    expect(plan.bounds.length).toBeGreaterThan(2);
    expect(plan.startVersion).toMatch(/^\d+$/);
    const edges = [null, ...plan.bounds, null];
    const chunks: (string | null)[][] = [];
    for (let index = 0; index + 1 < edges.length; index += 1) {
      const read = await source.readSnapshot(definition, { keyRange: { lower: edges[index] ?? null, upper: edges[index + 1] ?? null } });
      chunks.push(...records(await text(read.rows)));
    }
    const whole = await snapshotOf(definition);
    expect(chunks.length).toBe(3000);
    expect(chunks.map((row) => JSON.stringify(row)).sort()).toEqual(whole.rows.map((row) => JSON.stringify(row)).sort());
  }, 60_000);

  it('gives back the connection of a read abandoned before its first row, so that the pool never runs dry', async () => {
    await server.execute('CREATE TABLE shop.abandoned (id INT PRIMARY KEY); INSERT INTO shop.abandoned VALUES (1), (2);', 'shop');
    const definition = await definitionOf('abandoned');
    const seed = await source.readSnapshot(definition);
    await text(seed.rows);
    await server.execute('INSERT INTO shop.abandoned VALUES (3)', 'shop');
    // Twice the pool's four connections, each read abandoned unread (its work failed before publishing, say).
    for (let round = 0; round < 8; round += 1) {
      const read = round % 2 === 0 ? await source.readSnapshot(definition) : await source.readChanges(definition, seed.startVersion, 100);
      abandonRowStream(read);
      await expect(read.finished).rejects.toThrow('abandoned');
    }
    await expect(Promise.race([source.describeTable(definition.table), new Promise((_, reject) => setTimeout(() => reject(new Error('the pool ran dry')), 10_000))])).resolves.toMatchObject({
      table: definition.table,
    });
  }, 60_000);
});
