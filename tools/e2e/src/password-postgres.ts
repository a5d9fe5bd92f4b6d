import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, postgresAccount, postgresBinDir } from '@svc/testing';

const run = promisify(execFile);

/** A PostgreSQL server of the test's own that checks passwords (scram-sha-256 over TCP). */
export interface PasswordPostgres {
  port: number;
  /** URL of a database on this server; the superuser's when no user is given. */
  url(database: string, user?: { name: string; password: string }): string;
  stop(): Promise<void>;
}

/**
 * The shared test server trusts every local connection, so a password change there proves nothing:
 * tests of credential rotation start this one (initdb into a temporary folder, about two seconds).
 * As root the server runs as the `postgres` account, because PostgreSQL refuses to run as root.
 */
export async function startPasswordPostgres(): Promise<PasswordPostgres> {
  const bin = postgresBinDir();
  const port = await freePort();
  const folder = mkdtempSync(join(tmpdir(), 'svc-e2e-pg-'));
  const dataDir = join(folder, 'data');
  const passwordFile = join(folder, 'superuser-password');
  const superuserPassword = `su-${randomBytes(12).toString('hex')}`;
  writeFileSync(passwordFile, superuserPassword);
  const asServerOwner = serverOwnerCommand(folder, passwordFile);

  await asServerOwner(join(bin, 'initdb'), [
    '-D', dataDir, '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions',
    '--auth-host=scram-sha-256', '--auth-local=trust', `--pwfile=${passwordFile}`,
  ]);
  const serverOptions = `-p ${port} -c listen_addresses=127.0.0.1 -k ${folder} -c fsync=off -c max_connections=100`;
  await asServerOwner(join(bin, 'pg_ctl'), ['-D', dataDir, '-l', join(folder, 'server.log'), '-w', '-t', '30', '-o', serverOptions, 'start']);

  return {
    port,
    url: (database, user = { name: 'postgres', password: superuserPassword }) =>
      `postgres://${encodeURIComponent(user.name)}:${encodeURIComponent(user.password)}@127.0.0.1:${port}/${database}`,
    stop: async () => {
      await asServerOwner(join(bin, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** Runs a server binary as the account that may own the data folder (itself, or `postgres` when root). */
function serverOwnerCommand(folder: string, ...ownedFiles: string[]): (binary: string, args: string[]) => Promise<unknown> {
  if (process.getuid?.() !== 0) return (binary, args) => run(binary, args);
  const { uid, gid } = postgresAccount();
  for (const path of [folder, ...ownedFiles]) chownSync(path, uid, gid);
  return (binary, args) => run('runuser', ['-u', 'postgres', '--', binary, ...args]);
}
