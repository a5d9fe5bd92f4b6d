import type { AlertTargetListing } from '@svc/registry-store';
import { sampleReplicationConfig, type ReplicationConfigOverrides } from '@svc/testing';
import { InMemoryAlertStore, InMemoryReplicationStore, InMemoryServiceConfigurationStore, InMemoryTableStateStore } from '../testing/in-memory-stores';
import { RegistryMetricsService } from './registry-metrics.service';
import { SourceWalHeld } from './source-wal-held';

const AUTHOR = { requestId: '1', accessKeyId: 'AKTEST' };

async function insertRunning(store: InMemoryReplicationStore, overrides: ReplicationConfigOverrides): Promise<string> {
  return (await store.insert({ status: 'Running', config: sampleReplicationConfig(overrides) }, AUTHOR)).replicationId;
}

/** An alert target as the store lists it: how its deliveries went. */
const opsWebhook: AlertTargetListing = {
  name: 'ops',
  type: 'Webhook',
  settings: { endpoint: 'https://hooks.example.com' },
  alertKinds: null,
  replicationIds: null,
  createdAt: new Date('2030-01-01T00:00:00.000Z'),
  updatedAt: new Date('2030-01-01T00:00:00.000Z'),
  deliveries: { delivered: 5, pending: 2, failed: 1, lastDeliveredAt: null, lastError: null, lastErrorAt: null },
};

describe('RegistryMetricsService', () => {
  it('lists every replication with its effective status, its tables and the alerts by kind', async () => {
    const replications = new InMemoryReplicationStore();
    const service = new InMemoryServiceConfigurationStore();
    const tables = new InMemoryTableStateStore();
    const alerts = new InMemoryAlertStore();
    const running = await insertRunning(replications, { replicationName: 'sales' });
    const idle = await insertRunning(replications, { replicationName: 'idle', dataReplication: false });
    tables.put(running, {
      name: '[public].[items]',
      phase: 'Tracking',
      rowsSeeded: 3000,
      rowsEstimated: 3000,
      lastVersion: '42',
      lagSeconds: 0.4,
      lastError: null,
      workStartedAt: '2030-01-01T00:00:00.000Z',
      lastProgressAt: '2030-01-01T00:01:00.000Z',
    });
    tables.put(running, { name: '[public].[log]', phase: 'Error', rowsSeeded: 0, rowsEstimated: 10, lastVersion: null, lagSeconds: null, lastError: 'permission denied' });
    await alerts.record({ replicationId: running, kind: 'Reseed', message: 'r1' });
    await alerts.record({ replicationId: running, kind: 'Reseed', message: 'r2' });
    await alerts.record({ replicationId: idle, kind: 'Failure', message: 'f' });

    const walHeld = new SourceWalHeld();
    walHeld.record(running, 7340032);
    const reply = await new RegistryMetricsService(replications, service, tables, alerts, { lastByTable: async () => new Map([[running, new Map([['[public].[items]', { validationId: 'v-1', state: 'Validated', mismatchedKeys: 0, endedAt: new Date('2030-01-01T00:00:10.000Z') }]])]]) }, walHeld, { list: async () => [opsWebhook] }).snapshot(new Date('2030-01-01T00:02:30.900Z'));

    expect(reply).toEqual({
      ok: true,
      value: {
        replications: [
          {
            replicationId: running,
            replicationName: 'sales',
            status: 'Running',
            // The WAL its source's slot keeps, as the last change probe heard it.
            sourceWalHeldBytes: 7340032,
            tables: [
              // In flight for 150 s, last progress 90 s ago.
              {
                name: '[public].[items]',
                phase: 'Tracking',
                rowsSeeded: 3000,
                lagSeconds: 0.4,
                lastCycleAt: null,
                failing: false,
                inFlightSeconds: 150,
                lastProgressAt: '2030-01-01T00:01:00.000Z',
                lastValidation: { state: 'Validated', mismatchedKeys: 0, endedAt: '2030-01-01T00:00:10.000Z' },
              },
              { name: '[public].[log]', phase: 'Error', rowsSeeded: 0, lagSeconds: null, lastCycleAt: null, failing: true, inFlightSeconds: null, lastProgressAt: null, lastValidation: null },
            ],
          },
          { replicationId: idle, replicationName: 'idle', status: 'Stopped', sourceWalHeldBytes: null, tables: [] },
        ],
        activeAlerts: [
          { replicationId: running, kind: 'Reseed', count: 2 },
          { replicationId: idle, kind: 'Failure', count: 1 },
        ],
        alertDeliveries: [
          { target: 'ops', type: 'Webhook', state: 'Pending', count: 2 },
          { target: 'ops', type: 'Webhook', state: 'Delivered', count: 5 },
          { target: 'ops', type: 'Webhook', state: 'Failed', count: 1 },
        ],
      },
    });
  });

  it('reports every replication Stopped while the service is stopped', async () => {
    const replications = new InMemoryReplicationStore();
    const service = new InMemoryServiceConfigurationStore();
    await insertRunning(replications, { replicationName: 'sales' });
    await service.update({ serviceStopped: true });
    const reply = await new RegistryMetricsService(replications, service, new InMemoryTableStateStore(), new InMemoryAlertStore(), { lastByTable: async () => new Map() }, new SourceWalHeld(), { list: async () => [] }).snapshot();
    expect(reply.ok && reply.value.replications.map((replication) => replication.status)).toEqual(['Stopped']);
  });
});
