import type { WorkFailed } from '@svc/contracts';
import { EngineError, type DriverErrorMapper, type EngineErrorKind } from '@svc/engines';
import { redactText } from '@svc/logging';
import { ENGINE_TABLE, driverErrorMappers } from './engine-table';

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
  message?: unknown;
  $metadata?: { httpStatusCode?: number };
}

type Verdict = 'retry' | 'stopTable' | 'stopReplication';

/**
 * What each kind of engine error means for the work. A table-level reseed or a new description
 * (changes purged, not tracked, stale definition) is decided by the extractor before a failure gets here:
 * left over, such errors are retried like any unknown one.
 */
const VERDICT_OF_KIND: Record<EngineErrorKind, Verdict> = {
  transient: 'retry',
  'database-missing': 'retry',
  'own-object-missing': 'retry',
  'authentication-failed': 'stopReplication',
  'object-missing': 'stopTable',
  'permission-denied': 'stopTable',
  'invalid-data': 'stopTable',
  'statement-failed': 'stopTable',
  'changes-purged': 'retry',
  'not-tracked': 'retry',
  'stale-definition': 'retry',
  'primary-key-required': 'retry',
  'foreign-table': 'stopTable',
};

/** Node socket and NATS codes of a connection that failed in a way that heals by itself, whatever the engine. */
const RETRYABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'TIMEOUT', '503']);
const RETRYABLE_S3 = new Set(['SlowDown', 'ServiceUnavailable', 'InternalError', 'RequestTimeout', 'ThrottlingException', 'RequestTimeTooSkewed']);
/** S3 answers that make the whole bucket unusable (keys, signature, permissions, the bucket itself). */
const REPLICATION_S3 = new Set(['AccessDenied', 'NoSuchBucket', 'InvalidAccessKeyId', 'SignatureDoesNotMatch', 'AllAccessDisabled', 'InvalidBucketName']);

/** The driver-error mappers of the build's engines. */
const BUILD_MAPPERS = driverErrorMappers(ENGINE_TABLE);

/**
 * The one place that decides whether a failed unit of work is retried (capped backoff) or stops with an
 * error, and whether that stop concerns its table or the whole replication (DESIGN §7; PeerDB's
 * classifier). Engine errors are judged by their kind: an EngineError says it, and each engine's mapper
 * reads its driver's errors (`mappers`, from the engine table). Unknown failures are retried: bounded
 * redelivery turns a persistent one into a failure report.
 */
export function classifyFailure(error: unknown, mappers: readonly DriverErrorMapper[] = BUILD_MAPPERS): FailureVerdict {
  const facts = (typeof error === 'object' && error !== null ? error : {}) as ErrorFacts;
  const code = typeof facts.code === 'string' ? facts.code : typeof facts.code === 'number' ? String(facts.code) : '';
  const name = typeof facts.name === 'string' ? facts.name : '';
  const reason = redactText(typeof facts.message === 'string' ? facts.message : String(error)).slice(0, 500);
  const verdicts: Record<Verdict, FailureVerdict> = {
    retry: { retryable: true, scope: 'table', reason },
    stopTable: { retryable: false, scope: 'table', reason },
    stopReplication: { retryable: false, scope: 'replication', reason },
  };

  const kind = error instanceof EngineError ? error.kind : RETRYABLE_NODE_CODES.has(code) ? 'transient' : mappedKind(error, mappers);
  if (kind !== undefined) return verdicts[VERDICT_OF_KIND[kind]];
  if (RETRYABLE_S3.has(name)) return verdicts.retry;
  if (REPLICATION_S3.has(name)) return verdicts.stopReplication;
  const status = facts.$metadata?.httpStatusCode;
  if (status !== undefined && status >= 500) return verdicts.retry;
  if (status === 403) return verdicts.stopReplication;
  if (status === 404) return verdicts.stopTable;
  return verdicts.retry;
}

function mappedKind(error: unknown, mappers: readonly DriverErrorMapper[]): EngineErrorKind | undefined {
  for (const mapper of mappers) {
    const kind = mapper(error);
    if (kind !== undefined) return kind;
  }
  return undefined;
}
