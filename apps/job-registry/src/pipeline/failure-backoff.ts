export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
}

/** Registry-side retry of a table whose work failed after the workers' own retries: 5 s doubling to 5 min. */
export const TABLE_RETRY_BACKOFF: BackoffPolicy = { baseMs: 5000, capMs: 300000 };

/**
 * Delay before the next attempt after `failures` failures in a row (1 = first failure): exponential,
 * capped, with equal jitter (half fixed, half random) so tables that failed together do not retry together.
 */
export function retryDelayMs(failures: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const exponent = Math.max(0, failures - 1);
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(exponent, 30));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}
