import { RetryableWorkError, TerminalWorkError, WorkAbortedError } from '@svc/messaging';
import { ReplicationGoneError } from './runtime-config.client';
import { classifyFailure, type FailureScope, type WorkSubject } from './failure-classifier';

/** A terminal failure as the registry is told it: the classified reason, what it concerns, and what the server said. */
export interface TerminalFailure {
  reason: string;
  scope: FailureScope;
  detail?: string;
}

/**
 * Runs one unit of work and turns its failure into the consumer's verdict: retry later (nak with backoff)
 * or give up for good. A terminal failure is reported through `onTerminal` first, with what it concerns
 * (its table or the whole replication), so the registry can stop the right thing with the reason. Work
 * for a deleted replication is dropped silently; work aborted by the process stopping is passed on as it is.
 * `subject` says what the work talks to, for the wording of the reason.
 */
export async function runClassified(work: () => Promise<void>, subject: WorkSubject, onTerminal: (failure: TerminalFailure) => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof ReplicationGoneError) return;
    // Shutting down is no failure: nothing to report, and the worker hands the message back.
    if (error instanceof WorkAbortedError) throw error;
    const verdict = classifyFailure(error, subject);
    const options = { cause: error, ...(verdict.detail !== undefined && { detail: verdict.detail }) };
    if (verdict.retryable) throw new RetryableWorkError(verdict.reason, options);
    await onTerminal({ reason: verdict.reason, scope: verdict.scope, ...(verdict.detail !== undefined && { detail: verdict.detail }) });
    throw new TerminalWorkError(verdict.reason, options);
  }
}
