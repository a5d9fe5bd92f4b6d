import type { WorkFailed } from '@svc/contracts';
import type { WorkFailureEvent } from '@svc/registry-store';
import { failureEvent } from './work-failure-event';

type Failure = Pick<WorkFailed, 'reseed' | 'retryable' | 'scope'>;

describe('failureEvent: how a reported failure moves its table', () => {
  it.each<[string, Failure, WorkFailureEvent]>([
    ['a reseed asked by a retryable failure', { retryable: true, reseed: true }, 'failed-reseed'],
    ['a reseed asked by a terminal failure', { retryable: false, reseed: true }, 'failed-reseed'],
    ['a reseed asked by a failure of the replication', { retryable: false, reseed: true, scope: 'replication' }, 'failed-reseed'],
    ['a retryable failure of the table', { retryable: true }, 'failed-retryable'],
    ['a retryable failure of the replication', { retryable: true, scope: 'replication' }, 'failed-retryable'],
    ['a terminal failure of the table', { retryable: false }, 'failed-terminal'],
    ['a terminal failure scoped to the table', { retryable: false, scope: 'table', reseed: false }, 'failed-terminal'],
    ['a terminal failure of the replication', { retryable: false, scope: 'replication' }, 'failed-replication-wide'],
  ])('%s', (_, failure, expected) => {
    expect(failureEvent(failure)).toBe(expected);
  });
});
