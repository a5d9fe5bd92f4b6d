import { MessagingError, WorkAbortedError, abortableSleep, isNatsOutage, retryDelayMs, untilAborted, type RetryBackoff } from '@svc/messaging';

/** How long a worker waits for an unreachable registry before its work fails (and is retried by redelivery). */
export interface RegistryWait {
  /** Waiting longer than this gives up. Default 5 minutes. */
  maxWaitMs: number;
  /** Pause between attempts: 250 ms doubling to 5 s, jittered. */
  backoff: RetryBackoff;
  /** Rejects with WorkAbortedError once `signal` is aborted. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
  /** Aborted when the worker shuts down: a wait for the registry then ends at once (WorkAbortedError). */
  shutdown?: AbortSignal;
}

export const DEFAULT_REGISTRY_WAIT: RegistryWait = {
  maxWaitMs: 5 * 60000,
  backoff: { initialMs: 250, maxMs: 5000 },
  sleep: abortableSleep,
  now: () => Date.now(),
};

/**
 * Nobody answered the request: no registry instance listens (one restarting or failing over), none replied in time
 * (a request lost while NATS reconnected included), or NATS itself is unreachable. Any reply — a refusal (`ok: false`),
 * a handler's error, a malformed packet — is none of these, nor is a closed connection: the workers' connection
 * reconnects for ever and is closed only at shutdown.
 */
export function registryUnavailable(error: unknown): boolean {
  if (error instanceof MessagingError) return error.kind === 'NoResponders' || error.kind === 'Timeout';
  return isNatsOutage(error);
}

/**
 * `request`, attempted again with backoff while the registry is unavailable (see registryUnavailable), for up to
 * `wait.maxWaitMs`; past that its last error is thrown (the message is then retried by redelivery). A reply ends the wait
 * at once, and so does any other error. `wait.shutdown` ends it with WorkAbortedError, an attempt in flight included (a
 * request may wait for its reply up to the requester's timeout). Each attempt must be safe to repeat.
 *
 * The worker keeps its message meanwhile: PipelineWorker extends its ack deadline while the handler runs.
 */
export async function waitForRegistry<T>(request: () => Promise<T>, wait: RegistryWait): Promise<T> {
  const startedAt = wait.now();
  for (let failures = 1; ; failures += 1) {
    try {
      return await untilAborted(request(), wait.shutdown, 'waiting for the registry');
    } catch (error) {
      if (!registryUnavailable(error)) throw error;
      const waited = wait.now() - startedAt;
      if (waited >= wait.maxWaitMs) throw error;
      if (wait.shutdown?.aborted) throw new WorkAbortedError('the worker is shutting down while the registry does not answer', { cause: error });
      await wait.sleep(Math.min(retryDelayMs(failures, wait.backoff), wait.maxWaitMs - waited), wait.shutdown);
    }
  }
}
