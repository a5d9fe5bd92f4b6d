import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { postgresBinDir } from './postgres-binaries';
import { PrivatePostgres } from './private-postgres';
import { TEST_POSTGRES_URL, createTempDatabase, type TempDatabase } from './temp-database';

/** A PostgreSQL server with wal_level = logical for tests of log capture; set to skip the search. */
const FROM_ENV = process.env['TEST_LOGICAL_POSTGRES_URL'];

let server: Promise<string> | null = null;

/**
 * The URL (database `postgres`) of a server whose wal_level is logical: TEST_LOGICAL_POSTGRES_URL (the integration run
 * sets it: jest.logical-postgres.js starts one cluster for all its workers), else the test server when it is so
 * configured, else a private cluster this process starts once (initdb, ~2 s) and stops when it exits normally.
 */
export function logicalPostgresUrl(): Promise<string> {
  server ??= findOrStart();
  return server;
}

/** A fresh database on the logical server (see logicalPostgresUrl); `drop` removes it and its replication slots. */
export async function createLogicalTempDatabase(prefix: string): Promise<TempDatabase> {
  return createTempDatabase(prefix, await logicalPostgresUrl());
}

async function findOrStart(): Promise<string> {
  if (FROM_ENV !== undefined && FROM_ENV !== '') return FROM_ENV;
  if ((await walLevelOf(TEST_POSTGRES_URL)) === 'logical') return TEST_POSTGRES_URL;
  const clusters = PrivatePostgres.create('svc-pg-logical-');
  const cluster = await clusters.initdb('logical');
  clusters.configure(cluster, { wal_level: 'logical', max_replication_slots: '20', max_wal_senders: '10', max_connections: '100' });
  await clusters.start(cluster);
  process.once('exit', () => stopAtExit(cluster.dataDir, clusters.folder));
  return cluster.url();
}

/** The server's wal_level (`replica`, `logical`, …). */
export async function walLevelOf(url: string): Promise<string> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ wal_level: string }>('show wal_level')).rows[0]?.wal_level ?? '';
  } finally {
    await client.end();
  }
}

/** Synchronous: an 'exit' handler cannot wait. Never throws. */
function stopAtExit(dataDir: string, folder: string): void {
  try {
    const asPostgres = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
    const pgCtl = join(postgresBinDir(), 'pg_ctl');
    const [command, ...args] = [...asPostgres, pgCtl, '-D', dataDir, '-m', 'immediate', '-w', 'stop'];
    if (command !== undefined) execFileSync(command, args, { stdio: 'ignore' });
    execFileSync('rm', ['-rf', folder], { stdio: 'ignore' });
  } catch {
    // Best effort: the folder is under the system's temporary folder.
  }
}
