import { ErrorCode } from 'nats';

/** JetStream API error codes this library reacts to (nats-server `errors.json`). */
export const JetStreamErrorCode = {
  streamNameInUse: 10058,
  /** Also answered to the loser of two concurrent creates of one stream. */
  streamSubjectOverlap: 10065,
  streamNotFound: 10059,
  consumerNameInUse: 10013,
  consumerAlreadyExists: 10148,
  /** A cluster that lost a node cannot place a new asset until the meta leader knows which peers are left. */
  clusterNoPeers: 10074,
  /** A message get found nothing at or after the sequence asked for. */
  noMessageFound: 10037,
} as const;

/** The JetStream API error code carried by a nats.js error, if any. */
export function jetStreamErrorCode(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const apiError = (error as { api_error?: { err_code?: unknown } }).api_error;
  return typeof apiError?.err_code === 'number' ? apiError.err_code : undefined;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * NATS did not answer, or answered that JetStream cannot serve now: what a cluster looks like while a node is
 * gone and new leaders are elected (a JetStream API `503` is also 'system temporarily unavailable').
 * Retrying is right; the same error from a healthy cluster is a real fault and must not hide behind a retry for long.
 */
export function isClusterUnavailable(error: unknown): boolean {
  if (jetStreamErrorCode(error) === JetStreamErrorCode.clusterNoPeers) return true;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === ErrorCode.Timeout || code === ErrorCode.NoResponders || code === ErrorCode.Disconnect;
}
