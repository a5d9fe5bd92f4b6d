import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The PostgreSQL server binaries: PG_BIN_DIR, else pg_config's, else the newest of the usual Debian folders. */
export function postgresBinDir(): string {
  const fromEnv = process.env['PG_BIN_DIR'];
  if (fromEnv) return fromEnv;
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
    if (existsSync(join(dir, 'initdb'))) return dir;
  } catch {
    // No pg_config on the PATH: fall through to the usual places.
  }
  for (const version of ['17', '16', '15', '14', '13']) {
    const dir = `/usr/lib/postgresql/${version}/bin`;
    if (existsSync(join(dir, 'initdb'))) return dir;
  }
  throw new Error('initdb not found: set PG_BIN_DIR to the folder of the PostgreSQL server binaries');
}

/** The `postgres` account, which runs the server binaries when the tests run as root (PostgreSQL refuses root). */
export function postgresAccount(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}
