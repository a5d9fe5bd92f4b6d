import { ErrorCode, rpcError, type RpcReply } from '@svc/contracts';
import type { JsonLogger } from '@svc/logging';

// Connection-level failures of the control database: node socket codes and PostgreSQL classes 08 / 57P.
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', '57P01', '57P02', '57P03']);

/**
 * The reply for an exception a service did not expect: Unavailable when the control database could not be
 * reached (the caller may retry), Internal otherwise. Messages are generic; details go to the log only.
 */
export function unexpectedFailure(error: unknown): { code: ErrorCode.Unavailable | ErrorCode.Internal; message: string } {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  const message = error instanceof Error ? error.message : '';
  const unavailable =
    (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) ||
    /Connection terminated|timeout exceeded when trying to connect/i.test(message);
  return unavailable
    ? { code: ErrorCode.Unavailable, message: 'the registry database is not available; try again later' }
    : { code: ErrorCode.Internal, message: 'internal error' };
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
