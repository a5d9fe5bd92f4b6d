/** Waits between attempts of one delivery: 1 s, doubling, at most `maxBackoffMs`. */
export function backoffMs(attempt: number, maxBackoffMs: number): number {
  return Math.min(maxBackoffMs, 1000 * 2 ** Math.min(Math.max(attempt - 1, 0), 20));
}

/** What to do after a failed attempt: try again at `nextAttemptAt`, or give up (refused, or past the window). */
export function afterFailure(
  failure: { retryable: boolean },
  alertCreatedAt: Date,
  attempt: number,
  now: Date,
  settings: { maxBackoffMs: number; giveUpMs: number },
): { retryAt: Date } | { giveUp: string } {
  if (!failure.retryable) return { giveUp: 'refused by the target' };
  const retryAt = new Date(now.getTime() + backoffMs(attempt, settings.maxBackoffMs));
  if (retryAt.getTime() - alertCreatedAt.getTime() > settings.giveUpMs) return { giveUp: `still failing ${Math.round(settings.giveUpMs / 3600000)} h after the alert` };
  return { retryAt };
}
