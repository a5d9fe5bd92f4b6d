/**
 * How a PipelineWorker handler reports failure. A handler classifies its failures once: throwing
 * RetryableWorkError (or any error that is not a TerminalWorkError) asks for redelivery after a backoff;
 * TerminalWorkError gives the message up at once.
 */
export class RetryableWorkError extends Error {
  /** What a driver or server said (redacted), kept apart from the message: see WorkErrorOptions. */
  readonly detail: string | undefined;

  constructor(message: string, options?: WorkErrorOptions) {
    super(message, options);
    this.name = 'RetryableWorkError';
    this.detail = options?.detail;
  }
}

export interface WorkErrorOptions {
  cause?: unknown;
  /**
   * What a driver or server said of the failure, redacted of credentials, when the message is a classified reason
   * that leaves it out (it may carry row values): handed to onGiveUp, and shown only to keys allowed to see it.
   */
  detail?: string;
}

/**
 * The handler stopped waiting because its process shuts down: the message is handed back at once for
 * another process, without counting as a failed attempt or being reported failed.
 */
export class WorkAbortedError extends Error {
  constructor(message = 'the worker is shutting down', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WorkAbortedError';
  }
}

/** Resolves after `ms`, or rejects with WorkAbortedError as soon as `signal` is aborted. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new WorkAbortedError());
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new WorkAbortedError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class TerminalWorkError extends Error {
  readonly detail: string | undefined;

  constructor(message: string, options?: WorkErrorOptions) {
    super(message, options);
    this.name = 'TerminalWorkError';
    this.detail = options?.detail;
  }
}
