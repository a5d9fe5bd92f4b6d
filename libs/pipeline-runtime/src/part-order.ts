import { RetryableWorkError } from '@svc/messaging';

export interface PartOrderOptions {
  /** How long a part waits in its worker slot for the part before it; then it is retried later. */
  timeoutMs?: number;
  pollMs?: number;
}

/**
 * Seed parts are applied in order. A part that arrives before its predecessor waits here, holding its
 * message alive (the consumer heartbeats long handlers), instead of being retried: retries are bounded,
 * and spending them on ordering would make a large seed give up and start over again and again.
 */
export async function waitForPreviousPart(isApplied: () => Promise<boolean>, previousBatchId: string, options: PartOrderOptions = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 10 * 60 * 1000;
  const pollMs = options.pollMs ?? 250;
  const deadline = Date.now() + timeoutMs;
  while (!(await isApplied())) {
    if (Date.now() >= deadline) throw new RetryableWorkError(`seed part ${previousBatchId} is still not applied; parts are applied in order`);
    await new Promise((resume) => setTimeout(resume, pollMs));
  }
}
