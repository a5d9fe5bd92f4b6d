import { FAILURE_DETAIL_MAX_LENGTH, failureText, type FailureClass, type FailureEndpoint, type WorkFailed } from '@svc/contracts';
import { EngineError, FAILURE_CLASS_OF_KIND, isUnreachableSocketError, type DriverErrorMapper, type EngineErrorKind } from '@svc/engines';
import { redactText } from '@svc/logging';
import { RetryableWorkError } from '@svc/messaging';
import { ENGINE_TABLE, driverErrorMappers } from './engine-table';

/** What a terminal failure stops: one table, or the whole replication (its database or bucket is unusable). */
export type FailureScope = NonNullable<WorkFailed['scope']>;

/** What the failed work was talking to: the stage's database, and the table it worked on. */
export interface WorkSubject {
  /** The stage's database: Source (extract), Staging (stage), Warehouse (load); S3 failures are the Bucket's. */
  endpoint: Exclude<FailureEndpoint, 'Bucket'>;
  /** `[schema].[table]` of the work, when it concerns one. */
  table?: string;
}

export interface FailureVerdict {
  retryable: boolean;
  /** Always 'table' for a retryable verdict. */
  scope: FailureScope;
  /** The classified reason (contracts' failureText) or the service's own words: no server's words, no row value, no secret. */
  reason: string;
  /** What the driver or server said, redacted of credentials and bounded: for the logs and for keys allowed to see it. */
  detail?: string;
}

interface ErrorFacts {
  code?: unknown;
  name?: unknown;
  message?: unknown;
  /** PostgreSQL's DETAIL (pg's DatabaseError.detail), e.g. `Key (email)=(…) already exists.` */
  detail?: unknown;
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
  unreachable: 'retry',
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

/**
 * NATS codes of a bus request that timed out or found no responder (a node lost, JetStream electing a leader): retried,
 * and worded as the bus's, not as the stage's database's (CI saw "Staging: … (internal error)" for a rows-stream timeout).
 */
const RETRYABLE_BUS_CODES = new Set(['TIMEOUT', '503']);
export const BUS_FAILURE_REASON = 'the message bus (NATS) did not answer in time; retried (a restarting node or a JetStream leader election answers so for a few seconds)';

/** S3 error names, with what they mean for the work and how lastError words them. */
const S3_NAMES: Readonly<Record<string, readonly [Verdict, FailureClass]>> = {
  SlowDown: ['retry', 'server-busy'],
  ServiceUnavailable: ['retry', 'server-busy'],
  InternalError: ['retry', 'server-busy'],
  RequestTimeout: ['retry', 'server-busy'],
  ThrottlingException: ['retry', 'server-busy'],
  RequestTimeTooSkewed: ['retry', 'internal'],
  // The whole bucket is unusable: keys, signature, permissions, the bucket itself.
  InvalidAccessKeyId: ['stopReplication', 'authentication-failed'],
  SignatureDoesNotMatch: ['stopReplication', 'authentication-failed'],
  AccessDenied: ['stopReplication', 'permission-denied'],
  AllAccessDisabled: ['stopReplication', 'permission-denied'],
  NoSuchBucket: ['stopReplication', 'object-missing'],
  InvalidBucketName: ['stopReplication', 'object-missing'],
};

/** The driver-error mappers of the build's engines. */
const BUILD_MAPPERS = driverErrorMappers(ENGINE_TABLE);

/**
 * The one place that decides whether a failed unit of work is retried (capped backoff) or stops with an
 * error, whether that stop concerns its table or the whole replication (DESIGN §7; PeerDB's classifier), and
 * how Describe words it. Engine errors are judged by their kind: an EngineError says it, and each engine's
 * mapper reads its driver's errors (`mappers`, from the engine table). Unknown failures are retried: bounded
 * redelivery turns a persistent one into a failure report. The reason is a fixed text of the failure's class
 * (a server's own words may carry row values, or be an attacker's server talking); what the server said goes
 * into `detail`.
 */
export function classifyFailure(error: unknown, subject: WorkSubject, mappers: readonly DriverErrorMapper[] = BUILD_MAPPERS): FailureVerdict {
  const facts = (typeof error === 'object' && error !== null ? error : {}) as ErrorFacts;
  const code = typeof facts.code === 'string' ? facts.code : typeof facts.code === 'number' ? String(facts.code) : '';
  const name = typeof facts.name === 'string' ? facts.name : '';
  const raw = typeof facts.message === 'string' ? facts.message : String(error);
  const serverDetail = typeof facts.detail === 'string' && facts.detail !== '' ? ` (${facts.detail})` : '';
  const detail = redactText(`${raw}${serverDetail}`).slice(0, FAILURE_DETAIL_MAX_LENGTH);
  /** `withDetail`: what the server said; none for the service's own words. */
  const verdict = (outcome: Verdict, reason: string, withDetail: string | undefined): FailureVerdict => ({
    retryable: outcome === 'retry',
    scope: outcome === 'stopReplication' ? 'replication' : 'table',
    reason,
    ...(withDetail !== undefined && { detail: withDetail }),
  });
  const worded = (failure: FailureClass, endpoint: FailureEndpoint, object: string | undefined): string =>
    failureText(failure, { endpoint, ...(object !== undefined && { object }) });
  const ofTheWork = (failure: FailureClass): string => worded(failure, subject.endpoint, objectOfTheWork(failure, subject.table));

  // The service's own words: a retry it asked for itself, or an engine error of a kind it words itself.
  if (error instanceof RetryableWorkError) return verdict('retry', error.message, error.detail);
  if (error instanceof EngineError && (FAILURE_CLASS_OF_KIND[error.kind] === null || error.serviceWorded)) {
    return verdict(VERDICT_OF_KIND[error.kind], raw, error.valueDetail === undefined ? undefined : redactText(error.valueDetail).slice(0, FAILURE_DETAIL_MAX_LENGTH));
  }
  const kind = error instanceof EngineError ? error.kind : isUnreachableSocketError(error) ? 'unreachable' : mappedKind(error, mappers);
  if (kind !== undefined) {
    // A kind the service words itself, read from a driver's error (say, tracking not enabled): that error's words are the server's.
    const failure = FAILURE_CLASS_OF_KIND[kind] ?? 'internal';
    const reason = kind === 'database-missing' ? worded(failure, subject.endpoint, 'the database') : ofTheWork(failure);
    return verdict(VERDICT_OF_KIND[kind], reason, detail);
  }
  if (RETRYABLE_BUS_CODES.has(code)) return verdict('retry', BUS_FAILURE_REASON, detail);
  // The customer's role could not be assumed: the service's own words (the role it was given, a classified reason).
  // A refusal (403, any 4xx) stops the replication until the trust policy is fixed; anything else is tried again.
  if (name === 'RoleAssumptionError') {
    const stsStatus = facts.$metadata?.httpStatusCode;
    return verdict(stsStatus !== undefined && stsStatus < 500 ? 'stopReplication' : 'retry', raw, undefined);
  }
  const s3 = S3_NAMES[name];
  if (s3 !== undefined) return verdict(s3[0], worded(s3[1], 'Bucket', s3[1] === 'object-missing' ? 'the bucket' : undefined), detail);
  const status = facts.$metadata?.httpStatusCode;
  if (status !== undefined && status >= 500) return verdict('retry', worded('server-busy', 'Bucket', undefined), detail);
  if (status === 403) return verdict('stopReplication', worded('permission-denied', 'Bucket', undefined), detail);
  if (status === 404) return verdict('stopTable', worded('object-missing', 'Bucket', 'a batch file'), detail);
  return verdict('retry', ofTheWork('internal'), detail);
}

/** The object a reason names: the work's table, which the service itself chose to read or write. */
function objectOfTheWork(failure: FailureClass, table: string | undefined): string | undefined {
  if (table === undefined) return undefined;
  return failure === 'object-missing' ? `${table} (or its schema or one of its columns)` : table;
}

function mappedKind(error: unknown, mappers: readonly DriverErrorMapper[]): EngineErrorKind | undefined {
  for (const mapper of mappers) {
    const kind = mapper(error);
    if (kind !== undefined) return kind;
  }
  return undefined;
}
