import { Client } from 'pg';
import { quoteIdentifier } from './control-database';

const INVALID_CATALOG_NAME = '3D000';
const DUPLICATE_DATABASE = '42P04';
// Two CREATE DATABASE racing for one name can also end in a unique violation on pg_database.
const UNIQUE_VIOLATION = '23505';

export class DatabaseUrlError extends Error {
  constructor(problem: string) {
    // The URL itself is never echoed: it may carry a password.
    super(`DATABASE_URL ${problem}`);
    this.name = 'DatabaseUrlError';
  }
}

/**
 * Creates the control database named by `databaseUrl` when it does not exist, connecting to the same
 * server's `postgres` database to do so. Safe when several instances start at once.
 */
export async function ensureDatabase(databaseUrl: string): Promise<{ created: boolean }> {
  const name = databaseNameOfUrl(databaseUrl);
  if (await canConnect(databaseUrl)) return { created: false };

  const adminUrl = new URL(databaseUrl);
  adminUrl.pathname = '/postgres';
  const admin = new Client({ connectionString: adminUrl.toString() });
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
    return { created: true };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === DUPLICATE_DATABASE || code === UNIQUE_VIOLATION) return { created: false };
    throw error;
  } finally {
    await admin.end();
  }
}

function databaseNameOfUrl(databaseUrl: string): string {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new DatabaseUrlError('is not a valid URL');
  }
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (name === '' || name.includes('/')) throw new DatabaseUrlError('must name one database in its path');
  return name;
}

/** True when the database exists; false only for "database does not exist", any other failure is thrown. */
async function canConnect(databaseUrl: string): Promise<boolean> {
  const client = new Client({ connectionString: databaseUrl });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === INVALID_CATALOG_NAME) return false;
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

