import type { EngineErrorKind } from '@svc/engines';
import { APPLICATION_LOCK_REFUSALS, STAGING_VALUE_TOO_LONG, isSqlServerUnreachable, loginErrorNumbers } from '@svc/sqlserver/common';

/**
 * mssql/tedious error codes of a connection that failed in a way that heals by itself. A ConnectionError of these
 * that reached no server at all is 'unreachable' (isSqlServerUnreachable); a RequestError ETIMEOUT is tedious's
 * requestTimeout (tedious 19 lib/connection.js requestTimeout()): a busy server.
 */
const TRANSIENT_CODES = new Set(['ETIMEOUT', 'ESOCKET', 'ECONNCLOSED']);

/**
 * mssql's words for a pool that gave no connection within tarn's acquireTimeoutMillis (lib/base/connection-pool.js
 * `_acquire`): the pool was busy. The service's gate (gateMssqlPool) keeps tarn from waiting; another pool may not.
 */
const POOL_ACQUIRE_TIMEOUT = 'Failed to acquire a connection from the pool';

/** Microsoft's lists of errors that heal by themselves, cited by the rows below. */
const AZURE_TRANSIENT_ERRORS = 'Troubleshoot transient connection errors (https://learn.microsoft.com/azure/azure-sql/database/troubleshoot-common-connectivity-issues)';
const SQLCLIENT_BASELINE = 'SqlConfigurableRetryFactory.BaselineTransientErrors (https://learn.microsoft.com/dotnet/api/microsoft.data.sqlclient.sqlconfigurableretryfactory.baselinetransienterrors)';
const ENGINE_ERRORS = 'Database engine events and errors (https://learn.microsoft.com/sql/relational-databases/errors-events/database-engine-events-and-errors)';

interface NumberedErrors {
  numbers: readonly number[];
  kind: EngineErrorKind;
  /** What the server says, in short. */
  means: string;
  source: string;
}

/**
 * SQL Server error numbers and what they mean for the pipeline; any other numbered error is a statement that
 * retrying cannot cure.
 */
const NUMBERED_ERRORS: readonly NumberedErrors[] = [
  { numbers: [1205], kind: 'transient', means: 'chosen as deadlock victim; rerun the transaction', source: SQLCLIENT_BASELINE },
  { numbers: [1222, 1204], kind: 'transient', means: 'lock request timeout; no lock resources now', source: SQLCLIENT_BASELINE },
  { numbers: [3960], kind: 'transient', means: 'snapshot isolation update conflict: the row changed since the transaction began', source: ENGINE_ERRORS },
  {
    numbers: [3961],
    kind: 'transient',
    means: 'snapshot isolation transaction failed: an object it reads was modified by a DDL statement in another concurrent transaction',
    source: ENGINE_ERRORS,
  },
  // The source switches snapshot isolation on; it stays PENDING_ON until earlier writers finish.
  { numbers: [3952], kind: 'transient', means: 'snapshot isolation is not allowed yet in the database', source: ENGINE_ERRORS },
  { numbers: [701, 8645], kind: 'transient', means: 'insufficient system memory; timeout waiting for query memory', source: ENGINE_ERRORS },
  { numbers: [4060], kind: 'transient', means: 'cannot open the database requested by the login (restoring, recovering, created again)', source: AZURE_TRANSIENT_ERRORS },
  { numbers: [4221], kind: 'transient', means: 'login to a read-secondary waits for row versioning', source: SQLCLIENT_BASELINE },
  { numbers: [233, 10053, 10054, 10060], kind: 'transient', means: 'transport-level error: the connection was closed, reset or timed out', source: SQLCLIENT_BASELINE },
  {
    numbers: [40197, 40501, 40613, 40143, 40540, 49918, 49919, 49920, 10928, 10929],
    kind: 'transient',
    means: 'Azure SQL: service busy, database unavailable, reconfiguration, resource limits',
    source: AZURE_TRANSIENT_ERRORS,
  },
  { numbers: [42108, 42109], kind: 'transient', means: 'Azure Synapse: the SQL pool is not available yet', source: SQLCLIENT_BASELINE },
  { numbers: [911], kind: 'database-missing', means: 'database does not exist', source: ENGINE_ERRORS },
  { numbers: [18456, 18452, 18487, 18488, 18486], kind: 'authentication-failed', means: 'login failed; untrusted domain; password expired or must change; account locked', source: ENGINE_ERRORS },
  { numbers: [208, 207, 2760], kind: 'object-missing', means: 'invalid object name, invalid column name, schema does not exist', source: ENGINE_ERRORS },
  {
    numbers: [229, 230, 262, 300, 916, 5011],
    kind: 'permission-denied',
    means: 'permission denied on an object, column or database; 5011: user does not have permission to alter the database',
    source: ENGINE_ERRORS,
  },
  {
    numbers: [2627, 2601, 515, 547, 8152, 2628, 8115, 245, 241, 242, 8114],
    kind: 'invalid-data',
    means: 'duplicate key, NULL into NOT NULL, constraint conflict, truncation, arithmetic overflow, conversion',
    source: ENGINE_ERRORS,
  },
  // Raised by staging itself (staging-sql.ts valueLengthGuardSql) rather than let CONVERT cut a value.
  { numbers: [STAGING_VALUE_TOO_LONG], kind: 'invalid-data', means: 'a value is longer than its staging column keeps', source: 'THROW (https://learn.microsoft.com/sql/t-sql/language-elements/throw-transact-sql)' },
  { numbers: [22105, 22106], kind: 'not-tracked', means: 'change tracking is not enabled on the table (or the database)', source: ENGINE_ERRORS },
  // A statement ran under snapshot isolation in a transaction that did not start in it: a bug, not retried.
  { numbers: [3951], kind: 'statement-failed', means: 'snapshot isolation switched inside a transaction', source: ENGINE_ERRORS },
  // The staging lock statement raises sp_getapplock's refusals under these numbers (application-lock.ts).
  ...APPLICATION_LOCK_REFUSALS.map((refusal) => ({
    numbers: [refusal.errorNumber],
    kind: refusal.retryable ? ('transient' as const) : ('statement-failed' as const),
    means: `sp_getapplock returned ${refusal.returnCode}: ${refusal.meaning}`,
    source: 'sp_getapplock return code values (https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-getapplock-transact-sql)',
  })),
];

const KIND_OF_NUMBER: ReadonlyMap<number, EngineErrorKind> = new Map(NUMBERED_ERRORS.flatMap((row) => row.numbers.map((number) => [number, row.kind] as const)));

/** The kind of an mssql driver error; undefined for any other error. */
export function sqlServerErrorKind(error: unknown): EngineErrorKind | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, number } = error as { code?: unknown; number?: unknown };
  if (code === 'ELOGIN') return loginErrorKind(error);
  if (isSqlServerUnreachable(error)) return 'unreachable';
  if (typeof number === 'number') return KIND_OF_NUMBER.get(number) ?? 'statement-failed';
  if (typeof code === 'string' && TRANSIENT_CODES.has(code)) return 'transient';
  if (error instanceof Error && error.message.startsWith(POOL_ACQUIRE_TIMEOUT)) return 'transient';
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
