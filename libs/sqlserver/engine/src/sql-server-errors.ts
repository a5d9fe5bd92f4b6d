import type { EngineErrorKind } from '@svc/engines';

/** mssql/tedious error codes of a connection that failed in a way that heals by itself. */
const TRANSIENT_CODES = new Set(['ETIMEOUT', 'ESOCKET', 'ECONNCLOSED']);
/**
 * SQL Server error numbers worth retrying: deadlock victim (1205), Azure SQL's transient errors (40197, 40501,
 * 40613, 49918–49920) and a database that cannot be opened yet (4060).
 */
const TRANSIENT_NUMBERS = new Set([1205, 40197, 40501, 40613, 49918, 49919, 49920, 4060]);

/** The kind of an mssql driver error; undefined for any other error. */
export function sqlServerErrorKind(error: unknown): EngineErrorKind | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, number } = error as { code?: unknown; number?: unknown };
  if (code === 'ELOGIN') return 'authentication-failed';
  if (typeof code === 'string' && TRANSIENT_CODES.has(code)) return 'transient';
  if (typeof number === 'number') return TRANSIENT_NUMBERS.has(number) ? 'transient' : 'statement-failed';
  return undefined;
}
