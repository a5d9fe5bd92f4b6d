export type DeadlineOutcome<T> = { settled: true; value: T } | { settled: false };

/** Waits for `work` at most `timeoutMs`; a rejection of `work` within the deadline is rethrown. */
export async function withinDeadline<T>(work: Promise<T>, timeoutMs: number): Promise<DeadlineOutcome<T>> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<DeadlineOutcome<T>>((resolve) => {
    timer = setTimeout(() => resolve({ settled: false }), timeoutMs);
  });
  try {
    return await Promise.race([work.then((value): DeadlineOutcome<T> => ({ settled: true, value })), expiry]);
  } finally {
    clearTimeout(timer);
  }
}
