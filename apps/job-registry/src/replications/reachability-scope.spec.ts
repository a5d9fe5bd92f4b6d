import { sampleCreateRequest } from '../testing/requests';
import { newReplicationConfig } from './new-replication-config';
import { inAlterTerms, reachabilityTargetForChanges } from './reachability-scope';

const config = newReplicationConfig(sampleCreateRequest(), 'sales');

describe('reachabilityTargetForChanges', () => {
  it('checks nothing when no connection-relevant field changed', () => {
    expect(reachabilityTargetForChanges(config, ['parallelTablesLimit', 'warehouse.scdType', 'warehouse.timeoutInMins', 'warehouse.retentionDays'])).toBeNull();
  });

  it('checks only the changed groups', () => {
    expect(reachabilityTargetForChanges(config, ['source.connectionString'])).toEqual({
      source: { connectionString: config.source.connectionString, encryptDataInTransit: false },
    });
    expect(reachabilityTargetForChanges(config, ['staging.connectionString', 'tablesToInclude'])).toEqual({
      staging: { connectionString: config.staging.connectionString, encryptDataInTransit: false },
    });
    for (const field of ['bucketName', 'secretKey', 'accessType', 'url', 'password', 'regionEndpoint']) {
      expect(reachabilityTargetForChanges(config, [`warehouse.${field}`])).toEqual({ warehouse: config.warehouse });
    }
  });
});

describe('inAlterTerms', () => {
  it('names probe failures after the Alter fields', () => {
    expect(inAlterTerms('{Source\\ConnectionString}: cannot connect: connection refused')).toBe('{SourceConnectionString}: cannot connect: connection refused');
    expect(inAlterTerms('{Staging\\ConnectionString}: cannot connect: timed out')).toBe('{DestinationConnectionString}: cannot connect: timed out');
    expect(inAlterTerms('{Warehouse\\BucketName}: cannot write to bucket: access denied')).toBe('{Warehouse\\BucketName}: cannot write to bucket: access denied');
  });
});
