import { RetryableWorkError, TerminalWorkError, WorkAbortedError } from '@svc/messaging';
import { ReplicationGoneError } from './runtime-config.client';
import { classifyFailure, type FailureScope } from './failure-classifier';

/**
 * Runs one unit of work and turns its failure into the consumer's verdict: retry later (nak with backoff)
 * or give up for good. A terminal failure is reported through `onTerminal` first, with what it concerns
 * (its table or the whole replication), so the registry can stop the right thing with the reason. Work
 * for a deleted replication is dropped silently; work aborted by the process stopping is passed on as it is.
 */
export async function runClassified(work: () => Promise<void>, onTerminal: (reason: string, scope: FailureScope) => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof ReplicationGoneError) return;
    // Shutting down is no failure: nothing to report, and the worker hands the message back.
    if (error instanceof WorkAbortedError) throw error;
    const verdict = classifyFailure(error);
    if (verdict.retryable) throw new RetryableWorkError(verdict.reason);
    await onTerminal(verdict.reason, verdict.scope);
    throw new TerminalWorkError(verdict.reason);
  }
}
