/**
 * How a PipelineWorker handler reports failure. A handler classifies its failures once: throwing
 * RetryableWorkError (or any error that is not a TerminalWorkError) asks for redelivery after a backoff;
 * TerminalWorkError gives the message up at once.
 */
export class RetryableWorkError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RetryableWorkError';
  }
}

export class TerminalWorkError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TerminalWorkError';
  }
}
