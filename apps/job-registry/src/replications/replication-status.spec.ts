import type { ReplicationStatus } from '@svc/contracts';
import { effectiveStatus, statusAfterAlter } from './replication-status';

describe('effectiveStatus', () => {
  // stored status, DataReplication, service stopped → reported status
  it.each<[ReplicationStatus, boolean, boolean, ReplicationStatus]>([
    ['Running', true, false, 'Running'],
    ['Running', false, false, 'Stopped'],
    ['Running', true, true, 'Stopped'],
    ['Stopped', true, false, 'Stopped'],
    ['Failed', true, false, 'Failed'],
    ['Failed', false, true, 'Failed'],
    ['Deleting', true, false, 'Deleting'],
    ['Deleting', false, true, 'Deleting'],
  ])('%s with DataReplication=%s and service stopped=%s is %s', (status, dataReplication, serviceStopped, expected) => {
    expect(effectiveStatus({ status, dataReplication }, { serviceStopped })).toBe(expected);
  });
});

describe('statusAfterAlter', () => {
  it.each<[ReplicationStatus, boolean | undefined, ReplicationStatus]>([
    ['Running', undefined, 'Running'],
    ['Failed', undefined, 'Failed'],
    ['Running', false, 'Stopped'],
    ['Stopped', true, 'Running'],
    ['Failed', true, 'Running'],
    ['Deleting', true, 'Deleting'],
  ])('%s with DataReplication=%s becomes %s', (current, dataReplication, expected) => {
    expect(statusAfterAlter(current, dataReplication)).toBe(expected);
  });

  it.each<[ReplicationStatus, string[], ReplicationStatus]>([
    ['Failed', ['source.connectionString'], 'Running'],
    ['Failed', ['staging.connectionString'], 'Running'],
    ['Failed', ['warehouse.password'], 'Running'],
    ['Failed', ['warehouse.bucketName'], 'Running'],
    ['Failed', ['parallelTablesLimit'], 'Failed'],
    ['Failed', ['warehouse.scdType'], 'Failed'],
    ['Stopped', ['source.connectionString'], 'Stopped'],
    ['Deleting', ['source.connectionString'], 'Deleting'],
  ])('%s whose %j change becomes %s', (current, changedFields, expected) => {
    expect(statusAfterAlter(current, undefined, changedFields)).toBe(expected);
  });
});
