import { mysqlColumnPlan, mysqlConnectionOptions, type MysqlColumnRow } from '@svc/mysql/common';
import { PrivateMariaDb } from '@svc/testing';
import type { RowDataPacket } from 'mysql2';
import type { BinlogPosition } from './binlog-position';
import { scanChanges, type ScanTarget } from './change-scan';
import { keyDecodingOf } from './row-image';

let server: PrivateMariaDb;

beforeAll(async () => {
  server = await PrivateMariaDb.start();
  await server.execute('CREATE DATABASE shop');
}, 90_000);

afterAll(async () => {
  await server?.stop();
});

async function logEnd(): Promise<BinlogPosition> {
  const connection = await server.connect();
  try {
    const [rows] = await connection.query<RowDataPacket[]>('SHOW MASTER STATUS');
    return { file: String(rows[0]?.['File']), position: Number(rows[0]?.['Position']) };
  } finally {
    await connection.end();
  }
}

/** The table's key columns as the source connector plans them, from information_schema. */
async function targetOf(table: string): Promise<ScanTarget> {
  const connection = await server.connect();
  try {
    const [rows] = await connection.query<RowDataPacket[]>(
      `SELECT c.COLUMN_NAME name, c.ORDINAL_POSITION ordinal, c.DATA_TYPE dataType, c.COLUMN_TYPE columnType, c.CHARACTER_MAXIMUM_LENGTH characterLength,
              c.NUMERIC_PRECISION numericPrecision, c.NUMERIC_SCALE numericScale, c.DATETIME_PRECISION datetimePrecision, c.CHARACTER_SET_NAME characterSet, c.COLUMN_KEY columnKey
         FROM information_schema.COLUMNS c WHERE c.TABLE_SCHEMA = 'shop' AND c.TABLE_NAME = ? ORDER BY c.ORDINAL_POSITION`,
      [table],
    );
    const keyColumns = rows
      .filter((row) => row['columnKey'] === 'PRI')
      .map((row) => {
        const plan = mysqlColumnPlan({ ...(row as unknown as MysqlColumnRow), characterLength: row['characterLength'] === null ? null : Number(row['characterLength']), json: false });
        const decoding = plan === null ? null : keyDecodingOf(plan);
        if (decoding === null) throw new Error(`no key plan for ${String(row['name'])}`);
        return { ordinal: Number(row['ordinal']) - 1, decoding };
      });
    return { schema: 'shop', name: table, keyColumns };
  } finally {
    await connection.end();
  }
}

describe('scanChanges on MariaDB', () => {
  it('collects the keys of inserts, updates (old and new key) and deletes, per table, to the end of the log', async () => {
    await server.execute(
      `CREATE TABLE shop.orders (id BIGINT UNSIGNED, region CHAR(3), note VARCHAR(20), amount DECIMAL(12,3), at DATETIME(6), PRIMARY KEY (region, id));
       CREATE TABLE shop.other (id INT PRIMARY KEY, v TEXT);`,
    );
    const from = await logEnd();
    await server.execute(
      `INSERT INTO shop.orders VALUES (18446744073709551615, 'eu', 'a', -1.5, '2024-01-01 00:00:00.000001'), (1, 'us ', NULL, 0, NULL);
       INSERT INTO shop.other VALUES (1, 'x');
       START TRANSACTION; UPDATE shop.orders SET id = 2 WHERE id = 1; DELETE FROM shop.orders WHERE id = 18446744073709551615; COMMIT;`,
    );
    const until = await logEnd();
    const options = mysqlConnectionOptions(server.url('shop'), { encrypt: false, connectTimeoutMs: 5000 });
    const [scan] = await scanChanges(options, { until, reads: [{ target: await targetOf('orders'), from, limit: 1000 }], serverId: 9001 });
    expect([...(scan?.keys.values() ?? [])]).toEqual([
      { key: ['18446744073709551615', 'eu'], first: 'insert' },
      { key: ['1', 'us'], first: 'insert' },
      { key: ['2', 'us'], first: 'update' },
    ]);
    expect(scan?.records).toBe(4);
    expect(scan?.end).toEqual(until);
    expect(scan?.limited).toBe(false);
  }, 60_000);

  it('serves several tables in one read, each from its own position and up to its own limit, never inside a transaction', async () => {
    await server.execute('CREATE TABLE shop.a (id INT PRIMARY KEY); CREATE TABLE shop.b (id INT PRIMARY KEY);');
    const start = await logEnd();
    await server.execute('INSERT INTO shop.a VALUES (1); INSERT INTO shop.b VALUES (1);');
    const middle = await logEnd();
    await server.execute('START TRANSACTION; INSERT INTO shop.a VALUES (2), (3); INSERT INTO shop.b VALUES (2); COMMIT; INSERT INTO shop.a VALUES (4);');
    const until = await logEnd();
    const options = mysqlConnectionOptions(server.url('shop'), { encrypt: false, connectTimeoutMs: 5000 });
    const [fromStart, fromMiddle, limited] = await scanChanges(options, {
      until,
      reads: [
        { target: await targetOf('a'), from: start, limit: 1000 },
        { target: await targetOf('b'), from: middle, limit: 1000 },
        { target: await targetOf('a'), from: start, limit: 2 },
      ],
      serverId: 9002,
    });
    expect([...(fromStart?.keys.keys() ?? [])]).toEqual(['["1"]', '["2"]', '["3"]', '["4"]']);
    expect({ end: fromStart?.end, limited: fromStart?.limited }).toEqual({ end: until, limited: false });
    expect([...(fromMiddle?.keys.keys() ?? [])]).toEqual(['["2"]']);
    expect(fromMiddle?.end).toEqual(until);
    // The limit is reached inside the second transaction, which is read whole: three keys, and more after it.
    expect([...(limited?.keys.keys() ?? [])]).toEqual(['["1"]', '["2"]', '["3"]']);
    expect(limited?.limited).toBe(true);
    expect(limited?.records).toBe(3);
  }, 60_000);
});
