import { sqlStateErrorKind, sqlStateOf, type DriverErrorMapper } from '@svc/engines';
import { isPostgresUnreachable } from './postgres-failure';

/** SQLSTATEs of PostgreSQL that say a relation (42P01 undefined_table) or schema (3F000 invalid_schema_name) does not exist. */
const MISSING_OBJECT_SQLSTATES = new Set(['42P01', '3F000']);

/** Whether a PostgreSQL error says that a relation or a schema does not exist. */
export function isPostgresMissingObject(error: unknown): boolean {
  const code = sqlStateOf(error);
  return code !== undefined && MISSING_OBJECT_SQLSTATES.has(code);
}

/**
 * pg-pool's words for a checkout that waited connectionTimeoutMillis for a free client (pg-pool index.js `connect`):
 * the pool was busy. The service's gate (GatedPgPool) keeps pg-pool from waiting; another pool may not.
 */
const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';

/**
 * The kind of a pg driver error, from its SQLSTATE, or 'unreachable' for pg's fixed texts of an attempt that reached
 * no PostgreSQL server; undefined for any other error (or a SQLSTATE no kind names).
 */
export const postgresErrorKind: DriverErrorMapper = (error) =>
  isPostgresUnreachable(error) ? 'unreachable' : error instanceof Error && error.message === POOL_WAIT_TIMEOUT ? 'transient' : sqlStateErrorKind(error);
