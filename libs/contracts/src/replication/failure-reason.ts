/**
 * Why something the service connected to failed, as Describe's lastError and Create's and Alter's refusals say
 * it: a small closed set of classes, each with a fixed text that carries none of a driver's or server's words
 * and no row value. What a server said (redacted of credentials) is kept apart as the error's detail, for keys
 * allowed ERROR_DETAILS_PERMISSION.
 */
export const FAILURE_CLASSES = [
  /** Refused, timed out, unknown host, TLS failed, reset, or a server that does not speak the protocol: one class, so that the answer is no port scanner. */
  'unreachable',
  'authentication-failed',
  'permission-denied',
  'object-missing',
  /** A value that does not fit its column or breaks a constraint. */
  'data-error',
  /** Deadlocks, too many connections, statement and lock timeouts, a server restarting. */
  'server-busy',
  /** Anything else: a statement the server refused, a defect. */
  'internal',
] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

/** What the service was talking to. */
export type FailureEndpoint = 'Source' | 'Staging' | 'Warehouse' | 'Bucket';

export interface FailureSubject {
  endpoint: FailureEndpoint;
  /** `host:port` as the configuration names it (or a bucket's name); absent: "the server". */
  address?: string;
  /** The object the service itself was working on (a table it reads or writes), never a server's words. */
  object?: string;
}

/**
 * The permission, granted like an operation (`svc keys create --operations …`, and by `*`), that lets a key read
 * what a server said about a failure (Describe's LastErrorDetail). It is no operation of its own.
 */
export const ERROR_DETAILS_PERMISSION = 'DescribeReplicationErrorDetails';

/** The longest detail kept of a failure. */
export const FAILURE_DETAIL_MAX_LENGTH = 1000;

/** The one text for every "cannot reach" class, naming only the address the caller gave. */
export function cannotReachText(address?: string): string {
  return `cannot reach ${address ?? 'the server'} (refused, timed out, unknown host or TLS failed)`;
}

/** The reason of a failure of `failure` class, e.g. `Source: cannot reach db.example.com:5432 (…)`. */
export function failureText(failure: FailureClass, subject: FailureSubject): string {
  const { endpoint, address, object } = subject;
  switch (failure) {
    case 'unreachable':
      return `${endpoint}: ${cannotReachText(address)}`;
    case 'authentication-failed':
      return `${endpoint}: authentication failed`;
    case 'permission-denied':
      return `${endpoint}: permission denied${object === undefined ? '' : ` on ${object}`}`;
    case 'object-missing':
      return `${endpoint}: ${object ?? 'an object the replication uses'} does not exist`;
    case 'data-error':
      return `${endpoint}: a value does not fit its column or breaks a constraint${object === undefined ? '' : ` in ${object}`} (values are not shown)`;
    case 'server-busy':
      return `${endpoint}: the server is busy or did not answer in time`;
    case 'internal':
      return `${endpoint}: the operation failed (internal error)`;
  }
}
