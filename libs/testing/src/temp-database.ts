import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export const TEST_POSTGRES_URL = process.env['TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TempDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

export function databaseUrl(name: string, serverUrl = TEST_POSTGRES_URL): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The test server's URL without a database, for APIs that take the database name separately. */
export const TEST_POSTGRES_SERVER_URL = withoutDatabase(TEST_POSTGRES_URL);

/** A fresh, uniquely named database on the test server; `drop` removes it even if sessions are open. */
export async function createTempDatabase(prefix: string): Promise<TempDatabase> {
  const database = reserveTempDatabase(prefix);
  await withAdmin((admin) => admin.query(`create database "${database.name}"`));
  return database;
}

/**
 * A unique database name for the code under test to create itself; `drop` removes the database if it
 * exists by then.
 */
export function reserveTempDatabase(prefix: string): TempDatabase {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`.toLowerCase();
  return {
    name,
    url: databaseUrl(name),
    drop: () => withAdmin((admin) => admin.query(`drop database if exists "${name}" with (force)`)).then(() => undefined),
  };
}

function withoutDatabase(serverUrl: string): string {
  const url = new URL(serverUrl);
  url.pathname = '';
  return url.toString();
}

async function withAdmin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
