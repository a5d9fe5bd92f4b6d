import type { Alert } from '../api/wire-types.js';
import { alertsView } from './replication-views.js';

const failure: Alert = {
  alertId: 'a-1',
  replicationId: 'r-1',
  kind: 'Failure',
  message: '[public].[customers]: permission denied',
  createdAt: '2026-11-30T10:00:00.000Z',
  state: 'Active',
  deliveries: [
    { target: 'ops-sns', state: 'Delivered', attempts: 1, deliveredAt: '2026-11-30T10:00:01.000Z' },
    { target: 'ops-webhook', state: 'Pending', attempts: 3, lastError: 'webhook https://hooks.example.com/…: could not deliver (ECONNREFUSED)', nextAttemptAt: '2026-11-30T10:00:09.000Z' },
  ],
};

describe('the alerts view: deliveries', () => {
  it('lists each target the alert was sent to, and why one is still being retried', () => {
    const text = JSON.stringify(alertsView([failure]));
    expect(text).toContain('ops-sns: Delivered');
    expect(text).toContain('ops-webhook: Pending');
    expect(text).toContain(' after 3 attempts');
    expect(text).toContain('could not deliver (ECONNREFUSED)');
  });

  it('shows no deliveries for an alert meant for no target', () => {
    expect(JSON.stringify(alertsView([{ ...failure, deliveries: [] }]))).not.toContain('alert-deliveries');
  });
});
