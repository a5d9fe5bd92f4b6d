import { Client, Pool } from 'pg';
import { DEMO_DATABASES, databaseUrl, type DemoDatabases } from './demo-settings';

/** A connection to the maintenance database; the error names the server, never the URL's password. */
export async function connectAdmin(postgresUrl: string): Promise<Client> {
  const client = new Client({ connectionString: postgresUrl });
  try {
    await client.connect();
  } catch (error) {
    const server = new URL(postgresUrl);
    throw new Error(`PostgreSQL is not answering at ${server.host} (${(error as Error).message}); start it or set DEMO_POSTGRES_URL`, { cause: error });
  }
  return client;
}

/** Drops (closing their sessions) and creates the three demo databases. */
export async function recreateDemoDatabases(admin: Client, databases: DemoDatabases = DEMO_DATABASES): Promise<void> {
  for (const name of Object.values(databases)) {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  }
}

export function openPool(postgresUrl: string, database: string): Pool {
  return new Pool({ connectionString: databaseUrl(postgresUrl, database), max: 4 });
}
