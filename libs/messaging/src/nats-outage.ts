import type { NatsConnection } from 'nats';
import { JetStreamErrorCode, jetStreamErrorCode } from './jetstream-errors';
import { DEFAULT_RETRY_BACKOFF, retryDelayMs, type RetryBackoff } from './retry-backoff';
import { WorkAbortedError, abortableSleep } from './work-errors';

/** How long a JetStream call made from a handler waits out NATS being unreachable. */
export interface OutageWait {
  /** Past this, the last error is thrown (the message is then retried by redelivery). 0: no waiting. */
  maxWaitMs: number;
  /** Pause between attempts. */
  backoff: RetryBackoff;
  /** Aborted when the worker shuts down: the wait ends at once with WorkAbortedError. */
  shutdown?: AbortSignal;
}

export const DEFAULT_OUTAGE_WAIT: OutageWait = { maxWaitMs: 2 * 60000, backoff: { initialMs: 250, maxMs: 5000 } };
export const NO_OUTAGE_WAIT: OutageWait = { maxWaitMs: 0, backoff: DEFAULT_RETRY_BACKOFF };

/**
 * nats.js error codes of a server that is not reachable right now, which a later attempt can outlive: the
 * connection is down or reconnecting, no reply in time, or nobody listens (JetStream or a stream's leader
 * is starting or failing over). `503` also answers a subject that no stream takes: callers that can tell
 * the two apart ask `stillMissing` (see waitOutOutage).
 */
const OUTAGE_CODES: ReadonlySet<string> = new Set(['DISCONNECT', 'CONNECTION_REFUSED', 'CONNECTION_TIMEOUT', 'TIMEOUT', '503']);

export function isNatsOutage(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && OUTAGE_CODES.has(code);
}

/** The nats.js error says that nobody answered (no JetStream, no stream leader, or no stream for the subject). */
export function isNoResponders(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '503';
}

/**
 * Runs `attempt` until it succeeds, retrying in place with backoff while it fails because NATS is
 * unreachable, for up to `wait.maxWaitMs`. Any other error is thrown at once, as is an outage error for
 * which `isPermanent` says that waiting cannot help. Every attempt must be idempotent (a JetStream publish
 * with a stable message id is: the stream drops a repeat within its duplicate window).
 *
 * A handler keeps its message meanwhile: PipelineWorker extends the ack deadline while the handler runs.
 */
export async function waitOutOutage<T>(attempt: () => Promise<T>, wait: OutageWait, isPermanent: (error: unknown) => Promise<boolean> = async () => false): Promise<T> {
  const startedAt = Date.now();
  for (let failures = 1; ; failures += 1) {
    try {
      return await untilAborted(attempt(), wait.shutdown);
    } catch (error) {
      if (error instanceof WorkAbortedError) throw error;
      if (!isNatsOutage(error)) throw error;
      const waited = Date.now() - startedAt;
      if (waited >= wait.maxWaitMs) throw error;
      if (wait.shutdown?.aborted) throw new WorkAbortedError('the worker is shutting down while NATS is unreachable', { cause: error });
      if (await isPermanent(error)) throw error;
      await abortableSleep(Math.min(retryDelayMs(failures, wait.backoff), wait.maxWaitMs - waited), wait.shutdown);
    }
  }
}

/**
 * `work`, or WorkAbortedError as soon as `signal` is aborted: an attempt waiting on an unreachable server
 * (up to its own timeout) must not hold up a shutdown. The abandoned attempt is left to settle unobserved.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined, waitingFor = 'NATS is unreachable'): Promise<T> {
  if (signal === undefined) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new WorkAbortedError(`the worker is shutting down while ${waitingFor}`));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * For a publish answered "no responders": true when waiting cannot help because `streamName` does not
 * exist or does not take `subject` (a deployment error), false while the stream may just be unreachable.
 */
export async function noStreamTakes(connection: NatsConnection, streamName: string, subject: string): Promise<boolean> {
  try {
    const manager = await connection.jetstreamManager({ checkAPI: false });
    const info = await manager.streams.info(streamName);
    return !info.config.subjects.some((pattern) => subjectMatches(pattern, subject));
  } catch (error) {
    return jetStreamErrorCode(error) === JetStreamErrorCode.streamNotFound;
  }
}

/** NATS subject matching: `*` takes one token, a final `>` one or more. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const wanted = pattern.split('.');
  const tokens = subject.split('.');
  for (let index = 0; index < wanted.length; index += 1) {
    if (wanted[index] === '>') return index === wanted.length - 1 && tokens.length > index;
    if (index >= tokens.length || (wanted[index] !== '*' && wanted[index] !== tokens[index])) return false;
  }
  return wanted.length === tokens.length;
}
