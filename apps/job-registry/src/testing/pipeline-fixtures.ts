/** Builders of scheduler inputs for the planner's fake-clock tests. */
import { splitSecrets, type SchedulableReplication, type TableRuntimeState } from '@svc/registry-store';
import { sampleReplicationConfig } from '@svc/testing';

export const NOW = new Date(Date.UTC(2026, 10, 23, 12, 0, 0));
export const settings = { idleCycleDelayMs: 1000, minuteMs: 60000 };

export function replication(overrides: Partial<SchedulableReplication['config']> = {}, status: SchedulableReplication['status'] = 'Running'): SchedulableReplication {
  return {
    replicationId: 'r1',
    status,
    configVersion: 1,
    discoveredConfigVersion: 1,
    config: {
      ...splitSecrets(sampleReplicationConfig({ replicationName: 'r', parallelTablesLimit: 2, changeTrackingBatchLimit: 500 })).publicConfig,
      ...overrides,
    },
  };
}

export function table(name: string, overrides: Partial<TableRuntimeState> = {}): TableRuntimeState {
  return {
    replicationId: 'r1',
    tableName: name,
    phase: 'Tracking',
    tracked: true,
    lastVersion: '100',
    lastIncarnation: null,
    inFlightWorkId: null,
    inFlightKind: null,
    inFlightSince: null,
    inFlightPublishedAt: null,
    inFlightGroupId: null,
    lastProgressAt: null,
    lastSeededAt: new Date(NOW.getTime() - 3600000),
    lastCycleAt: new Date(NOW.getTime() - 5000),
    lastCycleRows: 0,
    lastError: null,
    lastErrorDetail: null,
    workEpoch: 1,
    ctTimeoutLevel: 0,
    failureCount: 0,
    retryAt: null,
    watermarkAt: new Date(NOW.getTime() - 5000),
    retentionAlertedAt: null,
    updatedAt: new Date(NOW.getTime() - 5000),
    ...overrides,
  };
}

