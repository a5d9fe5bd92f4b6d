import type { TableRef } from '@svc/contracts';
import { describeStagingContract, type Row, type StagingUnderTest } from '@svc/engines/testing';
import { TEST_POSTGRES_URL, createTempDatabase } from '@svc/testing';
import { Client } from 'pg';
import { createPostgresStaging } from './postgres-staging';

/** Quoted here, apart from the connector's quoting, so that a defect in it is not shared by the check. */
const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function run<T extends object>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

async function openStaging(): Promise<StagingUnderTest> {
  const database = await createTempDatabase('stg_contract');
  const connector = createPostgresStaging(database.url, { encrypt: false });
  return {
    connector,
    rows: async (table: TableRef): Promise<Row[]> => {
      const columns = await run<{ name: string }>(
        database.url,
        `SELECT attname AS name FROM pg_attribute WHERE attrelid = to_regclass('${quoted(table.schema).replace(/'/g, "''")}.${quoted(table.name).replace(/'/g, "''")}') AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
      );
      const client = new Client({ connectionString: database.url });
      await client.connect();
      try {
        const select = columns.map((column) => `${quoted(column.name)}::text`).join(', ');
        const result = await client.query({ text: `SELECT ${select} FROM ${quoted(table.schema)}.${quoted(table.name)}`, rowMode: 'array' });
        return result.rows as Row[];
      } finally {
        await client.end();
      }
    },
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

describeStagingContract([
  {
    name: 'PostgreSQL',
    open: openStaging,
    // "The system uses no more than NAMEDATALEN-1 bytes of an identifier" (PostgreSQL documentation, 4.1.1 Identifiers and Key Words).
    naming: { longest: { bytes: 63 }, caseSensitive: true },
  },
]);
