/** JetStream API error codes this library reacts to (nats-server `errors.json`). */
export const JetStreamErrorCode = {
  streamNameInUse: 10058,
  /** Also answered to the loser of two concurrent creates of one stream. */
  streamSubjectOverlap: 10065,
  consumerNameInUse: 10013,
  consumerAlreadyExists: 10148,
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
