import { Portable, type TableRef } from '@svc/contracts';
import { describeStagingContract, type ContractNaming, type Row, type StagingUnderTest } from '@svc/engines/testing';
import { PrivateMariaDb } from '@svc/testing';
import type { RowDataPacket } from 'mysql2';
import { createMysqlStaging } from './mysql-staging';

/** Quoted here, apart from the connector's quoting, so that a defect in it is not shared by the check. */
const quoted = (name: string) => `\`${name.split('`').join('``')}\``;
const SYSTEM_DATABASES = ['mysql', 'information_schema', 'performance_schema', 'sys'];

let server: PrivateMariaDb;

beforeAll(async () => {
  server = await PrivateMariaDb.start();
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

async function userDatabases(): Promise<string[]> {
  const connection = await server.connect();
  try {
    const [rows] = await connection.query<RowDataPacket[]>('SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA');
    return rows.map((row) => String(row['name'])).filter((name) => !SYSTEM_DATABASES.includes(name));
  } finally {
    await connection.end();
  }
}

async function dropUserDatabases(): Promise<string[]> {
  const databases = await userDatabases();
  for (const name of databases) await server.execute(`DROP DATABASE ${quoted(name)}`);
  return databases;
}

/** Every row of the table, each field as the server's text; FLOAT read as DOUBLE, which MySQL prints with every digit. */
async function textRows(table: TableRef): Promise<Row[]> {
  const connection = await server.connect();
  try {
    const [columns] = await connection.query<RowDataPacket[]>(
      'SELECT TABLE_SCHEMA AS db, TABLE_NAME AS tbl, COLUMN_NAME AS name, DATA_TYPE AS type FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION',
      [table.schema, table.name],
    );
    const select = columns
      .filter((column) => column['db'] === table.schema && column['tbl'] === table.name)
      .map((column) => (column['type'] === 'float' ? `CAST(${quoted(String(column['name']))} AS DOUBLE)` : quoted(String(column['name']))))
      .join(', ');
    const [rows] = await connection.query({
      sql: `SELECT ${select} FROM ${quoted(table.schema)}.${quoted(table.name)}`,
      rowsAsArray: true,
      typeCast: (field) => field.string('utf8'),
    });
    return rows as unknown as Row[];
  } finally {
    await connection.end();
  }
}

async function openStaging(): Promise<StagingUnderTest> {
  await dropUserDatabases();
  const connector = createMysqlStaging(server.url(), { encrypt: false });
  return {
    connector,
    rows: textRows,
    // The control database and every staging database dropped and created again, empty.
    recreateDatabase: async () => {
      for (const name of await dropUserDatabases()) await server.execute(`CREATE DATABASE ${quoted(name)}`);
    },
    close: async () => {
      await connector.close();
      await dropUserDatabases();
    },
  };
}

/**
 * "The maximum length for each type of identifier": 64 characters for databases, tables and columns. "Column, index,
 * stored routine, and event names are not case-sensitive on any platform" ("Identifier Case Sensitivity", MySQL 8.0
 * Reference Manual 11.2.3): 'Mixed Case' and 'mixed case' are one column name.
 */
const naming: ContractNaming = { longest: { characters: 64 }, caseSensitive: false };

describeStagingContract([
  { name: 'MariaDB', open: openStaging, naming },
  {
    // Bounded text outside the key is declared LONGTEXT, its varchar(200) kept in the column's comment (staging-types.ts).
    name: 'MariaDB, varchar(200) text columns',
    open: openStaging,
    naming,
    columnTypes: {
      integer: { sourceType: 'int', portableType: Portable.integer() },
      text: { sourceType: 'varchar(200)', portableType: Portable.varchar(200) },
    },
  },
]);
