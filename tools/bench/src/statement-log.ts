import type { Pool } from 'pg';

/**
 * BENCH_STATEMENT_LOG_MS: statements that take at least this long are written to the PostgreSQL server's log, per
 * database (ALTER DATABASE … SET log_min_duration_statement), for a profile of where a run's database time went.
 */
export function statementLogThresholdMs(environment: Record<string, string | undefined>): number | null {
  const value = environment['BENCH_STATEMENT_LOG_MS']?.trim();
  if (!value) return null;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 0) throw new Error(`BENCH_STATEMENT_LOG_MS must be a whole number of milliseconds, got '${value}'`);
  return ms;
}

export async function logSlowStatements(pool: Pool, databases: string[], thresholdMs: number): Promise<void> {
  for (const database of databases) await pool.query(`ALTER DATABASE "${database.replace(/"/g, '""')}" SET log_min_duration_statement = ${thresholdMs}`);
}
