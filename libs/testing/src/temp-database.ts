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
export async function createTempDatabase(prefix: string, serverUrl = TEST_POSTGRES_URL): Promise<TempDatabase> {
  const database = reserveTempDatabase(prefix, serverUrl);
  await withAdmin(serverUrl, (admin) => admin.query(`create database "${database.name}"`));
  return database;
}

/**
 * A unique database name for the code under test to create itself; `drop` removes the database if it
 * exists by then.
 */
export function reserveTempDatabase(prefix: string, serverUrl = TEST_POSTGRES_URL): TempDatabase {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`.toLowerCase();
  return {
    name,
    url: databaseUrl(name, serverUrl),
    drop: () => withAdmin(serverUrl, (admin) => dropWhenIdle(admin, name)),
  };
}

/** How long a drop waits for the database's sessions to end by themselves before it terminates them. */
const SESSIONS_END_WAIT_MS = 3000;

/**
 * Drops the database once its sessions have ended, forcing the drop only after a wait: a pool's `end()`
 * resolves before the server has closed every backend, and a FORCE drop then sends a termination to a
 * client still closing, which surfaces in the test as an unhandled 'error' event.
 */
async function dropWhenIdle(admin: Client, name: string): Promise<void> {
  const deadline = Date.now() + SESSIONS_END_WAIT_MS;
  while (Date.now() < deadline) {
    const sessions = await admin.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
    if ((sessions.rows[0]?.n ?? 0) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // A logical replication slot of the database (log capture) would make the drop fail, and a relay still streaming it
  // (a walsender, which FORCE does not end) keeps it active: its session is ended first.
  await admin.query("select pg_terminate_backend(active_pid) from pg_replication_slots where database = $1 and active_pid is not null", [name]);
  const slotsDeadline = Date.now() + SESSIONS_END_WAIT_MS;
  while (Date.now() < slotsDeadline) {
    const active = await admin.query<{ n: number }>('select count(*)::int as n from pg_replication_slots where database = $1 and active', [name]);
    if ((active.rows[0]?.n ?? 0) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await admin.query('select pg_drop_replication_slot(slot_name) from pg_replication_slots where database = $1 and not active', [name]);
  await admin.query(`drop database if exists "${name}" with (force)`);
}

function withoutDatabase(serverUrl: string): string {
  const url = new URL(serverUrl);
  url.pathname = '';
  return url.toString();
}

async function withAdmin<T>(serverUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
