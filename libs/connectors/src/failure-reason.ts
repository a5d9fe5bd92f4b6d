import { UNREACHABLE_REASON, socketFailureReason, type FailureContext } from '@svc/engines';
import { DATABASE_ACCESS } from './engine';

export { UNREACHABLE_REASON, timedOutReason, type FailureContext } from '@svc/engines';

/** A short, secret-free reason for a failed connection attempt of any engine's driver (or a socket). */
export function connectionFailureReason(error: unknown, context: FailureContext): string {
  for (const access of Object.values(DATABASE_ACCESS)) {
    const reason = access.failureReason(error, context);
    if (reason !== undefined) return reason;
  }
  return socketFailureReason(error) ?? UNREACHABLE_REASON;
}
