import { UNREACHABLE_REASON, type FailureContext } from './connection-failure';
import { withinDeadline } from './deadline';

/**
 * Waits for a probe's connection attempt within the deadline and words its failure with `reasonOf`. The
 * connection is closed once the attempt has settled (mssql refuses to close a pool that is still
 * connecting); after a timeout that happens in the background, bounded by the driver's own connect timeout.
 */
export async function settleProbe(
  attempt: Promise<void>,
  close: () => Promise<void>,
  context: FailureContext,
  reasonOf: (error: unknown, context: FailureContext) => string,
): Promise<string | null> {
  const closeWhenSettled = attempt
    .catch(() => undefined)
    .then(close)
    .catch(() => undefined);
  try {
    const outcome = await withinDeadline(attempt, context.timeoutMs);
    // No answer within the deadline: a silent port, a dropped SYN or a TLS handshake that never ends.
    if (!outcome.settled) return UNREACHABLE_REASON;
    await closeWhenSettled;
    return null;
  } catch (error) {
    return reasonOf(error, context);
  }
}
