export interface RetryBackoff {
  /** Delay before the second delivery. */
  initialMs: number;
  /** No delay grows beyond this. */
  maxMs: number;
}

export const DEFAULT_RETRY_BACKOFF: RetryBackoff = { initialMs: 1000, maxMs: 60000 };

/** Capped exponential backoff: the delay after the `deliveryCount`-th failed delivery (1-based). */
export function retryDelayMs(deliveryCount: number, backoff: RetryBackoff = DEFAULT_RETRY_BACKOFF): number {
  const doublings = Math.max(0, Math.min(deliveryCount - 1, 30));
  return Math.min(backoff.maxMs, backoff.initialMs * 2 ** doublings);
}
