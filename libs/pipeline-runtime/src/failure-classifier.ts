import type { WorkFailed } from '@svc/contracts';
import { redactText } from '@svc/logging';

/** What a terminal failure stops: one table, or the whole replication (its database or bucket is unusable). */
export type FailureScope = NonNullable<WorkFailed['scope']>;

export interface FailureVerdict {
  retryable: boolean;
  /** Always 'table' for a retryable verdict. */
  scope: FailureScope;
  /** Short, secret-free description for Describe and the logs. */
  reason: string;
}

interface ErrorFacts {
  code?: unknown;
  name?: unknown;
  number?: unknown;
  message?: unknown;
  $metadata?: { httpStatusCode?: number };
}

/** PostgreSQL SQLSTATE classes and codes that mean "try again" (connection, resources, conflicts, cancel). */
const RETRYABLE_SQLSTATE = [/^08/, /^40001$/, /^40P01$/, /^53/, /^57P0[1-3]$/, /^57014$/, /^55P03$/, /^58/];
/** Ones that concern the whole database: credentials that no longer work, a database that is gone. */
const REPLICATION_SQLSTATE = [/^28/, /^3D000$/];
/** Ones that will not heal by waiting but concern one table: missing objects, permissions, data that does not fit. */
const TABLE_SQLSTATE = [/^42/, /^22/, /^23/];

const RETRYABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'TIMEOUT', '503']);
const RETRYABLE_MSSQL_CODES = new Set(['ETIMEOUT', 'ESOCKET', 'ECONNCLOSED']);
const RETRYABLE_S3 = new Set(['SlowDown', 'ServiceUnavailable', 'InternalError', 'RequestTimeout', 'ThrottlingException', 'RequestTimeTooSkewed']);
/** S3 answers that make the whole bucket unusable (keys, signature, permissions, the bucket itself). */
const REPLICATION_S3 = new Set(['AccessDenied', 'NoSuchBucket', 'InvalidAccessKeyId', 'SignatureDoesNotMatch', 'AllAccessDisabled', 'InvalidBucketName']);
const MSSQL_RETRYABLE_NUMBERS = new Set([1205, 40197, 40501, 40613, 49918, 49919, 49920, 4060]);

/**
 * The one place that decides whether a failed unit of work is retried (capped backoff) or stops with an
 * error, and whether that stop concerns its table or the whole replication (DESIGN §7; PeerDB's
 * classifier). Unknown failures are retried: bounded redelivery turns a persistent one into a failure
 * report.
 */
export function classifyFailure(error: unknown): FailureVerdict {
  const facts = (typeof error === 'object' && error !== null ? error : {}) as ErrorFacts;
  const code = typeof facts.code === 'string' ? facts.code : typeof facts.code === 'number' ? String(facts.code) : '';
  const name = typeof facts.name === 'string' ? facts.name : '';
  const reason = redactText(typeof facts.message === 'string' ? facts.message : String(error)).slice(0, 500);
  const retry: FailureVerdict = { retryable: true, scope: 'table', reason };
  const stopTable: FailureVerdict = { retryable: false, scope: 'table', reason };
  const stopReplication: FailureVerdict = { retryable: false, scope: 'replication', reason };

  if (/^[0-9A-Z]{5}$/.test(code)) {
    if (RETRYABLE_SQLSTATE.some((pattern) => pattern.test(code))) return retry;
    if (REPLICATION_SQLSTATE.some((pattern) => pattern.test(code))) return stopReplication;
    if (TABLE_SQLSTATE.some((pattern) => pattern.test(code))) return stopTable;
  }
  if (RETRYABLE_NODE_CODES.has(code)) return retry;
  if (code === 'ELOGIN') return stopReplication;
  if (RETRYABLE_MSSQL_CODES.has(code)) return retry;
  if (typeof facts.number === 'number') return MSSQL_RETRYABLE_NUMBERS.has(facts.number) ? retry : stopTable;
  if (RETRYABLE_S3.has(name)) return retry;
  if (REPLICATION_S3.has(name)) return stopReplication;
  const status = facts.$metadata?.httpStatusCode;
  if (status !== undefined && status >= 500) return retry;
  if (status === 403) return stopReplication;
  if (status === 404) return stopTable;
  return retry;
}
