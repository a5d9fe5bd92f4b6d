import type { RegistryMetricsReply } from '@svc/contracts';
import { replicationMetricsRegistry } from './replication-metrics';

const SNAPSHOT: RegistryMetricsReply = {
  replications: [
    {
      replicationId: '1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d',
      replicationName: 'sales "eu"',
      status: 'Running',
      sourceWalHeldBytes: 16777216,
      tables: [
        {
          name: '[public].[items]',
          phase: 'Tracking',
          rowsSeeded: 3000,
          lagSeconds: 0.42,
          lastCycleAt: '2026-11-23T05:00:00.000Z',
          failing: false,
          inFlightSeconds: 95,
          lastProgressAt: '2026-11-23T05:01:00.000Z',
          lastValidation: { state: 'Mismatched', mismatchedKeys: 7, endedAt: '2026-11-23T04:00:00.000Z' },
        },
        { name: '[public].[log]', phase: 'Pending', rowsSeeded: 0, lagSeconds: null, lastCycleAt: null, failing: true, inFlightSeconds: null, lastProgressAt: null, lastValidation: null },
      ],
    },
  ],
  activeAlerts: [{ replicationId: '1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d', kind: 'Reseed', count: 2 }],
};

async function seriesOf(snapshot: RegistryMetricsReply | null): Promise<string[]> {
  const text = await replicationMetricsRegistry(snapshot).metrics();
  return text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

describe('replicationMetricsRegistry', () => {
  let series: string[];
  beforeAll(async () => {
    series = await seriesOf(SNAPSHOT);
  });
  const key = 'replication_id="1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d",table="[public].[items]"';

  it('says the registry answered', () => {
    expect(series).toContain('svc_registry_up 1');
  });

  it('gives one status series per possible status, 1 for the current one, with the name escaped', () => {
    const statusLines = series.filter((line) => line.startsWith('svc_replication_status'));
    expect(statusLines).toHaveLength(4);
    expect(statusLines).toContain(
      'svc_replication_status{replication_id="1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d",replication_name="sales \\"eu\\"",status="Running"} 1',
    );
    expect(statusLines.filter((line) => line.endsWith(' 1'))).toHaveLength(1);
  });

  it('gives each table its phase, lag, last cycle time, seeded rows and failing flag', () => {
    expect(series).toContain(`svc_table_phase{${key},phase="Tracking"} 1`);
    expect(series).toContain(`svc_table_phase{${key},phase="Error"} 0`);
    expect(series).toContain(`svc_table_lag_seconds{${key}} 0.42`);
    expect(series).toContain(`svc_table_last_cycle_timestamp_seconds{${key}} ${Date.parse('2026-11-23T05:00:00.000Z') / 1000}`);
    expect(series).toContain(`svc_table_rows_seeded{${key}} 3000`);
    expect(series).toContain(`svc_table_failing{${key}} 0`);
    expect(series).toContain('svc_table_failing{replication_id="1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d",table="[public].[log]"} 1');
  });

  it('gives a table with work in flight how long it has been in flight and when it last made progress (a stall shows)', () => {
    expect(series).toContain(`svc_table_work_in_flight_seconds{${key}} 95`);
    expect(series).toContain(`svc_table_last_progress_timestamp_seconds{${key}} ${Date.parse('2026-11-23T05:01:00.000Z') / 1000}`);
  });

  it('leaves out lag, last cycle, work in flight and progress of a table that has none yet, rather than inventing 0', () => {
    expect(series.filter((line) => line.includes('[public].[log]') && /lag|last_cycle|in_flight|progress/.test(line))).toEqual([]);
  });

  it('gives a validated table its last validation\'s mismatched keys and when it ended; none to a table never validated', () => {
    expect(series).toContain(`svc_table_validation_mismatched_keys{${key}} 7`);
    expect(series).toContain(`svc_table_last_validation_timestamp_seconds{${key}} ${Date.parse('2026-11-23T04:00:00.000Z') / 1000}`);
    expect(series.filter((line) => line.includes('[public].[log]') && line.includes('validation'))).toEqual([]);
  });

  it('gives the WAL its source keeps for the replication slot, and nothing for a replication without a figure', async () => {
    expect(series).toContain('svc_source_wal_held_bytes{replication_id="1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d"} 16777216');
    const without = await seriesOf({ ...SNAPSHOT, replications: SNAPSHOT.replications.map((replication) => ({ ...replication, sourceWalHeldBytes: null })) });
    expect(without.filter((line) => line.startsWith('svc_source_wal_held_bytes'))).toEqual([]);
  });

  it('counts alerts by kind', () => {
    expect(series).toContain('svc_alerts{replication_id="1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d",kind="Reseed"} 2');
  });

  it('says only svc_registry_up 0 when the registry did not answer', async () => {
    expect(await seriesOf(null)).toEqual(['svc_registry_up 0']);
  });

  it('escapes backslashes and newlines in label values', async () => {
    const hostile: RegistryMetricsReply = { replications: [{ ...SNAPSHOT.replications[0], replicationName: 'a\\b\nc"d', tables: [] }], activeAlerts: [] };
    expect(await seriesOf(hostile)).toContain(
      'svc_replication_status{replication_id="1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d",replication_name="a\\\\b\\nc\\"d",status="Running"} 1',
    );
  });

  it('declares every family a gauge, with its help', async () => {
    const text = await replicationMetricsRegistry(SNAPSHOT).metrics();
    for (const name of ['svc_registry_up', 'svc_replication_status', 'svc_table_phase', 'svc_table_lag_seconds', 'svc_table_rows_seeded', 'svc_alerts']) {
      expect(text).toContain(`# TYPE ${name} gauge\n`);
      expect(text).toMatch(new RegExp(`# HELP ${name} \\S`));
    }
  });

  it('forgets a replication that is gone from the next snapshot', async () => {
    expect(await seriesOf({ replications: [], activeAlerts: [] })).toEqual(['svc_registry_up 1']);
  });
});
