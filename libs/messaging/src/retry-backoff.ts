export interface RetryBackoff {
  /** Upper bound of the delay before the second delivery. */
  initialMs: number;
  /** No delay grows beyond this. */
  maxMs: number;
}

/** Numbers in [0, 1), as Math.random gives them; injectable so that tests can pin the jitter. */
export type RandomSource = () => number;

export const DEFAULT_RETRY_BACKOFF: RetryBackoff = { initialMs: 1000, maxMs: 60000 };

/**
 * Capped exponential backoff with "equal jitter": the delay after the `deliveryCount`-th failed delivery
 * (1-based). Its ceiling doubles with every delivery up to `maxMs`; half of it is fixed and half random,
 * so workers that failed together (a database restart) do not all come back in the same instant, yet
 * every retry still waits at least half its ceiling.
 */
export function retryDelayMs(deliveryCount: number, backoff: RetryBackoff = DEFAULT_RETRY_BACKOFF, random: RandomSource = Math.random): number {
  const doublings = Math.max(0, Math.min(deliveryCount - 1, 30));
  const ceiling = Math.min(backoff.maxMs, backoff.initialMs * 2 ** doublings);
  const fraction = Math.min(1, Math.max(0, random()));
  return Math.round(ceiling / 2 + (fraction * ceiling) / 2);
}
