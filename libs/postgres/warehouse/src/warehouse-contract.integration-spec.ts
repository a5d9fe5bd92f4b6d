import type { BatchDescriptor, StagedFiles, TableRef } from '@svc/contracts';
import type { WarehouseTableOptions } from '@svc/engines';
import { TEST_BARE_NAME_SCHEMAS, describeWarehouseContract, type Row, type WarehouseUnderTest } from '@svc/engines/testing';
import { TEST_POSTGRES_SERVER_URL, TEST_POSTGRES_URL, createTempDatabase } from '@svc/testing';
import { Client } from 'pg';
import { createPostgresWarehouse } from './postgres-warehouse';
import { CsvFiles } from './testing/warehouse-fixture';

/** Quoted here, apart from the connector's quoting, so that a defect in it is not shared by the check. */
const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

async function run<T extends object>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

async function openWarehouse(): Promise<WarehouseUnderTest> {
  const database = await createTempDatabase('wh_contract');
  const server = new URL(TEST_POSTGRES_URL);
  const connector = createPostgresWarehouse(
    { url: TEST_POSTGRES_SERVER_URL, databaseName: database.name, username: decodeURIComponent(server.username) || 'postgres', password: decodeURIComponent(server.password) },
    { statementTimeoutMs: 30_000, bareNameSchemas: TEST_BARE_NAME_SCHEMAS },
  );
  const files = new CsvFiles();
  const columnNames = async (table: TableRef, options: WarehouseTableOptions) =>
    (
      await run<{ name: string }>(
        database.url,
        `SELECT attname AS name FROM pg_attribute WHERE attrelid = to_regclass(${literal(`${quoted(options.schema)}.${quoted(connector.targetTableName(table))}`)})
           AND attnum > 0 AND NOT attisdropped AND attname NOT LIKE 'svc\\_sys\\_%' ORDER BY attnum`,
      )
    ).map((column) => column.name);
  return {
    connector,
    reader: files,
    // The PostgreSQL warehouse's files hold the rows as the pipeline carries them (no stagedFileRows).
    stage: async (batch: BatchDescriptor, csvParts: readonly string[]): Promise<StagedFiles> => {
      const prefix = `folder/${batch.replicationId}/${batch.batchId}`;
      const partKeys = csvParts.map((csv, index) => {
        const key = `${prefix}/part-${String(index).padStart(5, '0')}.csv.gz`;
        files.put(key, csv);
        return key;
      });
      return { bucket: 'bucket', manifestKey: `${prefix}/manifest.json`, partKeys };
    },
    rows: async (table, options, history = false) => {
      const columns = (await columnNames(table, options)).map((name) => `${quoted(name)}::text`);
      const type2 = options.scdType === 'Type2';
      const select = [...columns, ...(type2 && history ? ['svc_sys_is_current::text', 'svc_sys_is_deleted::text'] : [])].join(', ');
      const where = type2 && !history ? 'WHERE svc_sys_is_current' : '';
      const client = new Client({ connectionString: database.url });
      await client.connect();
      try {
        const result = await client.query({ text: `SELECT ${select} FROM ${quoted(options.schema)}.${quoted(connector.targetTableName(table))} ${where}`, rowMode: 'array' });
        return result.rows as Row[];
      } finally {
        await client.end();
      }
    },
    columnNames,
    recreateDatabase: async () => {
      await run(TEST_POSTGRES_URL, `DROP DATABASE ${quoted(database.name)} WITH (FORCE)`);
      await run(TEST_POSTGRES_URL, `CREATE DATABASE ${quoted(database.name)}`);
    },
    close: async () => {
      await connector.close();
      await database.drop();
    },
  };
}

describeWarehouseContract([
  {
    name: 'PostgreSQL',
    open: openWarehouse,
    // "The system uses no more than NAMEDATALEN-1 bytes of an identifier" (PostgreSQL documentation, 4.1.1 Identifiers and Key Words).
    naming: { longest: { bytes: 63 }, caseSensitive: true },
  },
]);
