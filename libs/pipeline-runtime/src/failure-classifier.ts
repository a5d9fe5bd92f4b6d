import { redactText } from '@svc/logging';

export interface FailureVerdict {
  retryable: boolean;
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
/** Ones that will not heal by waiting: credentials, missing objects, permissions, data that does not fit. */
const TERMINAL_SQLSTATE = [/^28/, /^3D000$/, /^42P01$/, /^42703$/, /^42501$/, /^42/, /^22/, /^23/];

const RETRYABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'TIMEOUT', '503']);
const RETRYABLE_S3 = new Set(['SlowDown', 'ServiceUnavailable', 'InternalError', 'RequestTimeout', 'ThrottlingException', 'RequestTimeTooSkewed']);
const TERMINAL_S3 = new Set(['AccessDenied', 'NoSuchBucket', 'InvalidAccessKeyId', 'SignatureDoesNotMatch', 'AllAccessDisabled', 'InvalidBucketName']);
const MSSQL_RETRYABLE_NUMBERS = new Set([1205, 40197, 40501, 40613, 49918, 49919, 49920, 4060]);

/**
 * The one place that decides whether a failed unit of work is retried (capped backoff) or stops the
 * table with an error (DESIGN §7; PeerDB's classifier). Unknown failures are retried: bounded
 * redelivery turns a persistent one into a terminal failure.
 */
export function classifyFailure(error: unknown): FailureVerdict {
  const facts = (typeof error === 'object' && error !== null ? error : {}) as ErrorFacts;
  const code = typeof facts.code === 'string' ? facts.code : typeof facts.code === 'number' ? String(facts.code) : '';
  const name = typeof facts.name === 'string' ? facts.name : '';
  const reason = redactText(typeof facts.message === 'string' ? facts.message : String(error)).slice(0, 500);

  if (/^[0-9A-Z]{5}$/.test(code)) {
    if (RETRYABLE_SQLSTATE.some((pattern) => pattern.test(code))) return { retryable: true, reason };
    if (TERMINAL_SQLSTATE.some((pattern) => pattern.test(code))) return { retryable: false, reason };
  }
  if (RETRYABLE_NODE_CODES.has(code)) return { retryable: true, reason };
  if (code === 'ELOGIN') return { retryable: false, reason };
  if (code === 'ETIMEOUT' || code === 'ESOCKET' || code === 'ECONNCLOSED') return { retryable: true, reason };
  if (typeof facts.number === 'number') return { retryable: MSSQL_RETRYABLE_NUMBERS.has(facts.number), reason };
  if (RETRYABLE_S3.has(name)) return { retryable: true, reason };
  if (TERMINAL_S3.has(name)) return { retryable: false, reason };
  const status = facts.$metadata?.httpStatusCode;
  if (status !== undefined && status >= 500) return { retryable: true, reason };
  if (status === 403 || status === 404) return { retryable: false, reason };
  return { retryable: true, reason };
}
