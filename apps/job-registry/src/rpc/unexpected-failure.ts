import { ErrorCode, rpcError, type RpcReply } from '@svc/contracts';
import type { JsonLogger } from '@svc/logging';

// Connection-level failures of the control database: node socket codes and PostgreSQL classes 08 / 57P.
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', '57P01', '57P02', '57P03']);

/**
 * PostgreSQL errors caused by a value the caller sent (class 22 data exception, class 54 program limit), by
 * SQLSTATE. PostgreSQL's own message may quote the value, which can be a secret, so only these words are shown.
 */
const VALUE_PROBLEMS: ReadonlyMap<string, string> = new Map([
  ['22P05', 'a text value holds a character that cannot be stored (such as NUL)'],
  ['22021', 'a text value is not a valid character sequence'],
  ['22001', 'a value is longer than can be stored'],
  ['22003', 'a number is out of the range that can be stored'],
  ['54000', 'a value is larger than can be stored'],
]);

export type FailureCode = ErrorCode.Unavailable | ErrorCode.Internal | ErrorCode.ValidationFailed;

/**
 * The reply for an exception a service did not expect: Unavailable when the control database could not be
 * reached (the caller may retry), ValidationFailed when a value of the request could not be stored (the API
 * model should have refused it by field first; this is the net under it, so that no input ever becomes a 500),
 * Internal otherwise. Messages are generic; details go to the log only.
 */
export function unexpectedFailure(error: unknown): { code: FailureCode; message: string } {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  const message = error instanceof Error ? error.message : '';
  const unavailable =
    (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) ||
    /Connection terminated|timeout exceeded when trying to connect/i.test(message);
  if (unavailable) return { code: ErrorCode.Unavailable, message: 'the registry database is not available; try again later' };
  if (typeof code === 'string' && /^(?:22|54)[0-9A-Z]{3}$/.test(code)) {
    const problem = VALUE_PROBLEMS.get(code) ?? 'a value cannot be stored';
    return { code: ErrorCode.ValidationFailed, message: `the request was not applied: ${problem}; check the text fields of the request` };
  }
  return { code: ErrorCode.Internal, message: 'internal error' };
}

/** Runs a handler's work; an exception becomes a generic error reply and a log line with the context. */
export async function replyingOnFailure<T>(
  logger: Pick<JsonLogger, 'error'>,
  context: Record<string, unknown>,
  work: () => Promise<RpcReply<T>>,
): Promise<RpcReply<T>> {
  try {
    return await work();
  } catch (error) {
    const failure = unexpectedFailure(error);
    logger.error('request failed', { ...context, outcome: failure.code, error });
    return rpcError(failure.code, [failure.message]);
  }
}
