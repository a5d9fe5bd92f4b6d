import type { WorkFailed } from '@svc/contracts';
import type { WorkFailureEvent } from '@svc/registry-store';

/**
 * How a failure moves its table in the phase machine: a reseed asked (whatever else it says), a retry after
 * the backoff, the replication's own failure (it becomes Failed, the table keeps its phase), or the table's for good.
 */
export function failureEvent(failed: Pick<WorkFailed, 'reseed' | 'retryable' | 'scope'>): WorkFailureEvent {
  if (failed.reseed) return 'failed-reseed';
  if (failed.retryable) return 'failed-retryable';
  return failed.scope === 'replication' ? 'failed-replication-wide' : 'failed-terminal';
}
