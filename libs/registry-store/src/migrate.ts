import type { Pool } from 'pg';
import { MIGRATIONS, type Migration } from './migrations';

// Arbitrary constant shared by every registry instance: only one of them migrates at a time.
const MIGRATION_LOCK_KEY = 7_305_871_602_114_001;

export interface MigrationReport {
  applied: number[];
}

/**
 * Applies the migrations not yet recorded in svc_schema_migrations, each in its own transaction, under a
 * session advisory lock so that instances starting together do not race.
 */
export async function migrate(pool: Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<MigrationReport> {
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await client.query(`
        CREATE TABLE IF NOT EXISTS svc_schema_migrations (
          version integer PRIMARY KEY,
          name text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        )`);
      const done = await client.query<{ version: number }>('SELECT version FROM svc_schema_migrations');
      const doneVersions = new Set(done.rows.map((row) => row.version));
      for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
        if (doneVersions.has(migration.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO svc_schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
        applied.push(migration.version);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
  return { applied };
}
