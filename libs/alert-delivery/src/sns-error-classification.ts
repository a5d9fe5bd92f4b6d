import { errorFields } from './error-fields';

/**
 * SNS error codes (https://docs.aws.amazon.com/sns/latest/api/API_Publish.html#API_Publish_Errors and
 * https://docs.aws.amazon.com/sns/latest/api/CommonErrors.html), as the awsQuery error code and as the SDK names its
 * exception classes without the "Exception" suffix. Codes not listed fall back to the HTTP status.
 */
const RETRYABLE_CODES = new Set([
  'Throttled',
  'Throttling',
  'KMSThrottling',
  'InternalError',
  'InternalFailure',
  'ServiceUnavailable',
  'RequestTimeout',
  // A clock skew (RequestExpired) or an expiring role session (ExpiredToken) is corrected by the SDK on the next attempt.
  'RequestExpired',
  'ExpiredToken',
]);

const TERMINAL_CODES = new Set([
  'NotFound',
  'AuthorizationError',
  'InvalidParameter',
  'InvalidParameterValue',
  'Validation',
  'ValidationError',
  'InvalidSecurity',
  'EndpointDisabled',
  'PlatformApplicationDisabled',
  'KMSAccessDenied',
  'KMSDisabled',
  'KMSInvalidState',
  'KMSNotFound',
  'KMSOptInRequired',
  'AccessDenied',
  'MissingAuthenticationToken',
  'IncompleteSignature',
  'InvalidClientTokenId',
  'UnrecognizedClient',
  'SignatureDoesNotMatch',
  'OptInRequired',
  'InvalidAction',
  'MissingAction',
  'MissingParameter',
  'MalformedQueryString',
]);

export interface SnsFailure {
  /** The service's error code, or the SDK's error name for one that never reached SNS. */
  code: string;
  httpStatus: number | undefined;
  retryable: boolean;
}

/** Whether a PublishCommand failure may succeed on a later attempt. */
export function classifySnsError(error: unknown): SnsFailure {
  const code = codeOf(error);
  const httpStatus = httpStatusOf(error);
  if (RETRYABLE_CODES.has(code)) return { code, httpStatus, retryable: true };
  if (TERMINAL_CODES.has(code)) return { code, httpStatus, retryable: false };
  // No answer from SNS: refused connection, reset, timeout, or no credentials from the default chain right now.
  if (httpStatus === undefined) return { code, httpStatus, retryable: true };
  return { code, httpStatus, retryable: httpStatus >= 500 || httpStatus === 429 };
}

/** The service's code (the SDK's exception name less "Exception"), or a Node error code such as ECONNREFUSED. */
function codeOf(error: unknown): string {
  const { name, code } = errorFields(error);
  if (code !== undefined && name === 'Error') return code;
  return name.length > 'Exception'.length && name.endsWith('Exception') ? name.slice(0, -'Exception'.length) : name;
}

function httpStatusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('$metadata' in error)) return undefined;
  const metadata: unknown = error.$metadata;
  if (typeof metadata !== 'object' || metadata === null || !('httpStatusCode' in metadata)) return undefined;
  return typeof metadata.httpStatusCode === 'number' ? metadata.httpStatusCode : undefined;
}
