import { RetryableWorkError, TerminalWorkError } from '@svc/messaging';
import { ReplicationGoneError } from './runtime-config.client';
import { classifyFailure } from './failure-classifier';

/**
 * Runs one unit of work and turns its failure into the consumer's verdict: retry later (nak with backoff)
 * or give up for good. A terminal failure is reported through `onTerminal` first, so the registry can
 * stop the table with the reason. Work for a deleted replication is dropped silently.
 */
export async function runClassified(work: () => Promise<void>, onTerminal: (reason: string) => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof ReplicationGoneError) return;
    const verdict = classifyFailure(error);
    if (verdict.retryable) throw new RetryableWorkError(verdict.reason);
    await onTerminal(verdict.reason);
    throw new TerminalWorkError(verdict.reason);
  }
}
