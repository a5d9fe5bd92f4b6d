import { mysqlColumnPlan, mysqlConnectionOptions, type MysqlColumnRow } from '@svc/mysql/common';
import { PrivateMariaDb } from '@svc/mysql/common/testing';
import type { RowDataPacket } from 'mysql2';
import type { BinlogPosition } from './binlog-position';
import { scanChanges, targetKey, type ScanTarget } from './change-scan';

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
        if (plan?.key == null) throw new Error(`no key plan for ${String(row['name'])}`);
        return {
          ordinal: Number(row['ordinal']) - 1,
          decoding: { form: plan.key, ...(plan.characterSet !== undefined && { characterSet: plan.characterSet }), ...(plan.fixedBytes !== undefined && { fixedBytes: plan.fixedBytes }), ...(plan.labels && { labels: plan.labels }) },
          text: (raw: string) => plan.text(raw),
        };
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
    const result = await scanChanges(mysqlConnectionOptions(server.url('shop'), { encrypt: false, connectTimeoutMs: 5000 }), {
      from,
      until,
      targets: [await targetOf('orders')],
      recordLimit: 1000,
      serverId: 9001,
    });
    const scan = result.tables.get(targetKey({ schema: 'shop', name: 'orders' }));
    expect([...(scan?.keys.values() ?? [])]).toEqual([
      { key: ['18446744073709551615', 'eu'], first: 'insert' },
      { key: ['1', 'us'], first: 'insert' },
      { key: ['2', 'us'], first: 'update' },
    ]);
    expect(scan?.records).toBe(4);
    expect(result.end).toEqual(until);
    expect(result.limited).toBe(false);
  }, 60_000);
});
