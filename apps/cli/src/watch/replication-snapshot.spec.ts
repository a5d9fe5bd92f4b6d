import { parseReplicationSnapshot } from './replication-snapshot';

describe('parseReplicationSnapshot', () => {
  it('reads a Describe answer, null fields left out by the encoder filled in as null', () => {
    const body = JSON.stringify({
      replicationId: 'r-1',
      replicationName: 'dw',
      status: 'Running',
      configuration: { warehouse: { password: '********' } },
      tables: [
        { name: '[public].[a]', phase: 'Tracking', rowsSeeded: 10, rowsEstimated: 10, lagSeconds: 1.5, lastVersion: '42' },
        { name: '[public].[b]', phase: 'Seeding', rowsSeeded: 3, rowsEstimated: 9, inFlightSeconds: 4, lastError: 'retrying' },
        'not a table',
      ],
      alerts: [{ alertId: 'a-1', replicationId: 'r-1', kind: 'Reseed', message: 'scheduled', createdAt: '2026-11-23T10:00:00Z' }],
    });
    expect(parseReplicationSnapshot(body)).toEqual({
      replicationId: 'r-1',
      replicationName: 'dw',
      status: 'Running',
      lastError: null,
      tables: [
        { name: '[public].[a]', phase: 'Tracking', rowsSeeded: 10, rowsEstimated: 10, lagSeconds: 1.5, lastError: null, inFlightSeconds: null },
        { name: '[public].[b]', phase: 'Seeding', rowsSeeded: 3, rowsEstimated: 9, lagSeconds: null, lastError: 'retrying', inFlightSeconds: 4 },
      ],
      alerts: [{ kind: 'Reseed', message: 'scheduled', createdAt: '2026-11-23T10:00:00Z', state: 'Active' }],
    });
  });

  it('is undefined for a body that is not a description', () => {
    for (const body of ['', '<x/>', '[]', '{"errors":[]}', 'null']) expect(parseReplicationSnapshot(body)).toBeUndefined();
  });
});
