import type { EngineErrorKind } from '@svc/engines';
import { isSqlServerUnreachable, loginErrorNumbers } from '@svc/sqlserver-common';

/**
 * mssql/tedious error codes of a connection that failed in a way that heals by itself. A ConnectionError of these
 * that reached no server at all is 'unreachable' (isSqlServerUnreachable); a RequestError ETIMEOUT is tedious's
 * requestTimeout (tedious 19 lib/connection.js requestTimeout()): a busy server.
 */
const TRANSIENT_CODES = new Set(['ETIMEOUT', 'ESOCKET', 'ECONNCLOSED']);

/**
 * SQL Server error numbers and what they mean for the pipeline; any other numbered error is a statement
 * that retrying cannot cure. Sources: SQL Server's database engine errors and Azure SQL's transient errors.
 */
const KIND_OF_NUMBER: ReadonlyMap<number, EngineErrorKind> = new Map<number, EngineErrorKind>([
  // Deadlock victim, lock timeout, lock resources, snapshot update conflict, out of memory, query memory.
  ...[1205, 1222, 1204, 3960, 701, 8645].map((number) => [number, 'transient'] as const),
  // Snapshot isolation not allowed yet (the source switches it on; it stays PENDING_ON until writers finish).
  [3952, 'transient'],
  // Azure SQL: service busy, database unavailable, resources, reconfiguration.
  ...[40197, 40501, 40613, 49918, 49919, 49920, 10928, 10929].map((number) => [number, 'transient'] as const),
  // A database that cannot be opened yet (restoring, recovering, being created again).
  [4060, 'transient'],
  // Database does not exist.
  [911, 'database-missing'],
  // Login failed; untrusted domain; password expired or must change; account locked.
  ...[18456, 18452, 18487, 18488, 18486].map((number) => [number, 'authentication-failed'] as const),
  // Invalid object name, invalid column name, schema does not exist.
  ...[208, 207, 2760].map((number) => [number, 'object-missing'] as const),
  // Permission denied on an object, column or database.
  ...[229, 230, 262, 300, 916].map((number) => [number, 'permission-denied'] as const),
  // Duplicate key, NULL into NOT NULL, constraint conflict, truncation, arithmetic overflow, conversion.
  ...[2627, 2601, 515, 547, 8152, 2628, 8115, 245, 241, 242, 8114].map((number) => [number, 'invalid-data'] as const),
  // Change tracking is not enabled on the table (or the database).
  ...[22105, 22106].map((number) => [number, 'not-tracked'] as const),
  // A statement ran under snapshot isolation in a transaction that did not start in it: a bug, not retried.
  [3951, 'statement-failed'],
]);

/** The kind of an mssql driver error; undefined for any other error. */
export function sqlServerErrorKind(error: unknown): EngineErrorKind | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, number } = error as { code?: unknown; number?: unknown };
  if (code === 'ELOGIN') return loginErrorKind(error);
  if (isSqlServerUnreachable(error)) return 'unreachable';
  if (typeof number === 'number') return KIND_OF_NUMBER.get(number) ?? 'statement-failed';
  if (typeof code === 'string' && TRANSIENT_CODES.has(code)) return 'transient';
  return undefined;
}

/**
 * A refused login (tedious's ELOGIN, which carries no number) by the numbers the server sent during it
 * (login-errors.ts): SQL Server names the cause first and then says 18456 "Login failed", so the first number
 * that is not an authentication failure is the cause (4060, 40613, 40501: retried). Without such a number, the
 * credentials were refused.
 */
function loginErrorKind(error: unknown): EngineErrorKind {
  const kinds = loginErrorNumbers(error).map((number) => KIND_OF_NUMBER.get(number));
  return kinds.find((kind) => kind !== undefined && kind !== 'authentication-failed') ?? 'authentication-failed';
}
