import { formBody } from './form-spec.js';
import { ALTER_FIELDS, CREATE_FIELDS } from './replication-fields.js';

describe('form body', () => {
  it('builds the JSON request with lower camel names, typed values, and nothing for empty fields', () => {
    const values = new Map([
      ['parallelTablesLimit', ' 4 '],
      ['rebuildIndexes', 'false'],
      ['source.connectionString', 'postgres://u:p@h/db'],
      ['source.resetChangeTracking', ''],
      ['warehouse.bucketName', 'Bad Bucket'],
      ['warehouse.retentionDays', 'seven'],
      ['warehouse.password', ' pass with spaces '],
      ['tablesToInclude', 'All'],
      ['reseedingSchedule.fromTime', ''],
    ]);
    expect(formBody(CREATE_FIELDS, values)).toEqual({
      parallelTablesLimit: 4,
      rebuildIndexes: false,
      source: { connectionString: 'postgres://u:p@h/db' },
      warehouse: { bucketName: 'Bad Bucket', retentionDays: 'seven', password: ' pass with spaces ' },
      tablesToInclude: 'All',
    });
  });

  it('sends an Alter with its ReplicationId and only what changes', () => {
    const values = new Map([
      ['dataReplication', 'false'],
      ['isContinuous', ''],
      ['warehouse.timeoutInMins', '90'],
    ]);
    expect(formBody(ALTER_FIELDS, values, { replicationId: 'r-1' })).toEqual({ replicationId: 'r-1', dataReplication: false, warehouse: { timeoutInMins: 90 } });
  });

  it('covers every field of seed §2.1 and §2.2', () => {
    const labels = (fields: typeof CREATE_FIELDS) => fields.map((field) => field.path.join('\\'));
    expect(labels(CREATE_FIELDS)).toEqual(
      expect.arrayContaining(['ParallelTablesLimit', 'RebuildIndexes', 'Source\\ChangeTrackingRetentionPeriod', 'Staging\\ReplicateCompatibilityLevel', 'Warehouse\\AccountId', 'Warehouse\\ScdType', 'AddUpdateTimestamp', 'TablesToInclude', 'ReseedingSchedule\\RepeatIntervalInMinutes']),
    );
    // 2 top-level, Source 4 (with resetChangeTracking), Staging 3, Warehouse 15, AddUpdateTimestamp, TablesToInclude, ReseedingSchedule 5.
    expect(CREATE_FIELDS).toHaveLength(31);
    expect(labels(ALTER_FIELDS)).toEqual(expect.arrayContaining(['ReplicationName', 'DestinationConnectionString', 'AutoSerializedCtProcessTimeoutInMinutes', 'AlertOnSuccessfulTableSchemaChanges', 'Warehouse\\TimeoutInMins', 'ReseedingSchedule\\ToTime']));
    expect(labels(ALTER_FIELDS)).not.toContain('AddUpdateTimestamp');
  });
});
