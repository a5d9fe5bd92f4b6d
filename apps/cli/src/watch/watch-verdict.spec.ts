import type { ReplicationSnapshot, TableSnapshot } from './replication-snapshot';
import { watchVerdict } from './watch-verdict';

const table = (name: string, phase: string, lastError: string | null = null): TableSnapshot => ({
  name,
  phase,
  rowsSeeded: 0,
  rowsEstimated: 0,
  lagSeconds: null,
  lastError,
  inFlightSeconds: null,
});

function snapshot(tables: TableSnapshot[], overrides: Partial<ReplicationSnapshot> = {}): ReplicationSnapshot {
  return { replicationId: 'r-1', replicationName: 'dw', status: 'Running', lastError: null, tables, alerts: [], ...overrides };
}

describe('watchVerdict', () => {
  it('is settled when every table is Tracking, or Untracked (no primary key, it never tracks)', () => {
    expect(watchVerdict(snapshot([table('a', 'Tracking'), table('b', 'Untracked')]))).toEqual({ kind: 'settled' });
  });

  it('waits while a table is pending, seeding or reseeding, and while no table is known yet', () => {
    for (const phase of ['Pending', 'Seeding', 'Reseeding']) {
      expect(watchVerdict(snapshot([table('a', 'Tracking'), table('b', phase)]))).toEqual({ kind: 'waiting' });
    }
    expect(watchVerdict(snapshot([]))).toEqual({ kind: 'waiting' });
  });

  it('fails when the replication has Failed, naming its last error', () => {
    expect(watchVerdict(snapshot([table('a', 'Seeding')], { status: 'Failed', lastError: 'source unreachable' }))).toEqual({
      kind: 'failed',
      message: 'replication dw failed: source unreachable',
    });
  });

  it('fails when a table is in phase Error, naming the first and counting the others', () => {
    expect(watchVerdict(snapshot([table('a', 'Error', 'COPY failed'), table('b', 'Error'), table('c', 'Tracking')]))).toEqual({
      kind: 'failed',
      message: 'table a failed: COPY failed (and 1 more failed tables)',
    });
  });
});
