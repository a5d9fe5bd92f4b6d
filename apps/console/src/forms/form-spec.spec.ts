import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { h } from '../render/vnode.js';
import { formBody, referenceHref } from './form-spec.js';
import { ALTER_FIELDS, CREATE_FIELDS } from './replication-fields.js';
import { VALIDATE_FIELDS } from './validation-fields.js';

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

  it('covers every field of CreateWarehouseReplication and AlterWarehouseReplication (docs/API.md)', () => {
    const labels = (fields: typeof CREATE_FIELDS) => fields.map((field) => field.path.join('\\'));
    expect(labels(CREATE_FIELDS)).toEqual(
      expect.arrayContaining(['ParallelTablesLimit', 'RebuildIndexes', 'Source\\ChangeTrackingRetentionPeriod', 'Staging\\ReplicateCompatibilityLevel', 'Warehouse\\AccountId', 'Warehouse\\ScdType', 'AddUpdateTimestamp', 'TablesToInclude', 'ReseedingSchedule\\RepeatIntervalInMinutes']),
    );
    // 2 top-level, Source 4 (with resetChangeTracking), Staging 3, Warehouse 15, AddUpdateTimestamp, TablesToInclude, ReseedingSchedule 5,
    // ValidationSchedule 3.
    expect(CREATE_FIELDS).toHaveLength(34);
    expect(labels(CREATE_FIELDS)).toEqual(expect.arrayContaining(['ValidationSchedule\\FromTime', 'ValidationSchedule\\ToTime', 'ValidationSchedule\\RepeatIntervalInMinutes']));
    expect(labels(ALTER_FIELDS)).toEqual(expect.arrayContaining(['ReplicationName', 'DestinationConnectionString', 'AutoSerializedCtProcessTimeoutInMinutes', 'AlertOnSuccessfulTableSchemaChanges', 'Warehouse\\TimeoutInMins', 'ReseedingSchedule\\ToTime', 'ValidationSchedule\\RepeatIntervalInMinutes']));
    expect(labels(ALTER_FIELDS)).not.toContain('AddUpdateTimestamp');
  });

  it("links each field to its row of the API reference, and the reference has that row", () => {
    const reference = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'API.md'), 'utf8');
    const forms = [
      ['CreateWarehouseReplication', CREATE_FIELDS],
      ['AlterWarehouseReplication', ALTER_FIELDS],
      ['StartReplicationValidation', VALIDATE_FIELDS],
    ] as const;
    expect(referenceHref('CreateWarehouseReplication', { path: ['Warehouse', 'BucketName'] })).toBe(
      './api-reference.html#createwarehousereplication-warehouse-bucketname',
    );
    // The console's links may only stay on its origin: the reference's must pass that check.
    expect(h('a', { attrs: { href: referenceHref('AlterConfiguration') } }).attrs['href']).toBe('./api-reference.html#alterconfiguration');
    for (const [operation, fields] of forms) {
      const missing = fields.map((field) => referenceHref(operation, field).split('#')[1]).filter((anchor) => !reference.includes(`<a id="${anchor}">`));
      expect(missing).toEqual([]);
      expect(reference).toContain(`## ${operation}\n`);
    }
  });
});
