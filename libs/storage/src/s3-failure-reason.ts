import { cannotReachText } from '@svc/contracts';

/** Short, secret-free reasons for failed S3 calls. Only error names and codes are inspected. */

/**
 * The one reason for an S3 endpoint that was not reached (refused, unknown host, reset, timed out, TLS): as for
 * databases, telling these apart would make the answer a port scanner.
 */
export const S3_UNREACHABLE_REASON = cannotReachText('the S3 endpoint');

const REASONS_BY_NAME: Readonly<Record<string, string>> = {
  AccessDenied: 'access denied',
  Forbidden: 'access denied',
  AllAccessDisabled: 'access denied',
  AccountProblem: 'access denied',
  InvalidAccessKeyId: 'access denied: unknown access key',
  SignatureDoesNotMatch: 'access denied: secret key does not match',
  ExpiredToken: 'access denied: credentials expired',
  InvalidToken: 'access denied: invalid session token',
  NoSuchBucket: 'bucket does not exist',
  NotFound: 'bucket does not exist',
  InvalidBucketName: 'invalid bucket name',
  BucketAlreadyExists: 'bucket name is taken by another account',
  PermanentRedirect: 'bucket is not in the region named by RegionEndpoint',
  AuthorizationHeaderMalformed: 'bucket is not in the region named by RegionEndpoint',
  IllegalLocationConstraintException: 'bucket is not in the region named by RegionEndpoint',
  InvalidLocationConstraint: 'invalid RegionEndpoint',
  CredentialsProviderError: 'no service credentials available for IAMRole access',
};

/** Errors of this library whose message is written to be shown (it names fields and roles, never a credential). */
const SHOWN_MESSAGES: ReadonlySet<string> = new Set(['S3TargetError', 'RoleAssumptionError']);

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPROTO']);

export function s3FailureReason(error: unknown): string {
  if (!isRecord(error)) return 'unexpected error';
  const name = typeof error['name'] === 'string' ? error['name'] : '';
  if (name === 'AbortError' || name === 'TimeoutError') return S3_UNREACHABLE_REASON;
  if (SHOWN_MESSAGES.has(name) && typeof error['message'] === 'string') return error['message'];
  const byName = REASONS_BY_NAME[name];
  if (byName !== undefined) return byName;
  if (isNetworkFailure(error)) return S3_UNREACHABLE_REASON;
  if (typeof error['message'] === 'string' && /invalid region/i.test(error['message'])) return 'invalid RegionEndpoint';
  const status = httpStatusOf(error);
  if (status !== undefined) return /^[A-Za-z]+$/.test(name) ? `S3 error ${name} (HTTP ${status})` : `S3 error (HTTP ${status})`;
  return 'unexpected error';
}

/**
 * Node socket codes, also when wrapped in an AggregateError (dual-stack connect attempts) or a cause.
 * The SDK's retry layer re-wraps errors it does not recognise as `Error` (one from another realm, e.g.
 * under a test sandbox) into "AWS SDK error wrapper for Error: connect ECONNREFUSED …", keeping only the
 * text; the code is then read from the message.
 */
function isNetworkFailure(error: Record<string, unknown>): boolean {
  const candidates: unknown[] = [error, error['cause']];
  const inner = error['errors'];
  if (Array.isArray(inner)) candidates.push(...(inner as unknown[]));
  for (const candidate of candidates) {
    if (isRecord(candidate) && typeof candidate['code'] === 'string' && NETWORK_CODES.has(candidate['code'])) return true;
  }
  const message = typeof error['message'] === 'string' ? error['message'] : '';
  const codeInMessage = /\b(E[A-Z_]+)\b/.exec(message)?.[1];
  return codeInMessage !== undefined && NETWORK_CODES.has(codeInMessage);
}

function httpStatusOf(error: Record<string, unknown>): number | undefined {
  const metadata = error['$metadata'];
  if (!isRecord(metadata)) return undefined;
  const status = metadata['httpStatusCode'];
  return typeof status === 'number' ? status : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
