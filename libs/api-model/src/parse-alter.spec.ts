import { type WireFormat } from '@svc/api-codec';
import { parseOperationRequest } from './parse-operation-request';
import {
  ALTER_JSON_TEXT,
  GUID,
  REMOVE,
  alterAccessKeyTree,
  alterIamRoleTree,
  bodyOf,
  decoded,
  toXml,
  withChange,
  type Tree,
} from './spec-support/seed-requests';

const FORMATS: WireFormat[] = ['xml', 'json'];
const OP = 'AlterWarehouseReplication';

function parse(format: WireFormat, tree: Tree) {
  return parseOperationRequest(OP, decoded(OP, format, bodyOf(OP, format, tree)));
}

describe('AlterWarehouseReplication: accepted requests', () => {
  it('reads the seed-shaped AccessKey XML example', () => {
    expect(parseOperationRequest(OP, decoded(OP, 'xml', toXml(OP, alterAccessKeyTree())))).toEqual({
      ok: true,
      value: {
        replicationId: GUID,
        replicationName: 'Sales to warehouse',
        sourceConnectionString: 'Data Source=src.example.com;Initial Catalog=Sales;User ID=repl;Password=New-Pa55',
        destinationConnectionString: 'Data Source=stage.example.com;Initial Catalog=Sales;User ID=repl;Password=New-Pa55',
        dataReplication: true,
        schemaReplication: true,
        parallelTablesLimit: 8,
        changeTrackingBatchLimit: 500000,
        ctProcessTimeoutInMinutes: 30,
        serializedCtProcessTimeoutInMinutes: 30,
        autoSerializedCtProcessTimeoutInMinutes: 30,
        isContinuous: false,
        repeatIntervalInMinutes: 15,
        scheduleIntervalTimeFrom: '12:20:00 AM',
        scheduleIntervalTimeTo: '11:40:00 PM',
        isLogErrorsOnly: true,
        alertOnSuccessfulTableSchemaChanges: true,
        tablesToInclude: 'All',
        warehouse: {
          accessType: 'AccessKey',
          accessKey: 'AKIAIOSFODNN7EXAMPLE',
          secretKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
          bucketName: 'replication-bucket',
          bucketFolderName: '/replications/sales',
          regionEndpoint: 'us-east-1',
          retentionDays: 7,
          url: 'examplecluster.abc123xyz789.us-east-1.redshift.amazonaws.com:5439',
          databaseSchema: 'public',
          databaseName: 'dev',
          username: 'awsuser',
          password: 'Wh-Pa55word',
          scdType: 'Type2',
          timeoutInMins: 60,
        },
      },
    });
  });

  it.each(FORMATS)('reads the seed-shaped IAMRole example with a ReseedingSchedule (%s)', (format) => {
    expect(parse(format, alterIamRoleTree())).toEqual({
      ok: true,
      value: {
        replicationId: GUID,
        parallelTablesLimit: 8,
        warehouse: { accessType: 'IAMRole', accountId: '123456789012', roleName: 'RedshiftCopyRole', retentionDays: 5, timeoutInMins: 90 },
        reseedingSchedule: {
          noPkTablesToInclude: ['[dbo].[AuditLog]'],
          pkTablesToInclude: [],
          fromTime: '01:00:00 AM',
          toTime: '03:00:00 AM',
          repeatIntervalInMinutes: 720,
        },
      },
    });
  });

  it('reads the seed JSON example with its unquoted GUID and quoted numbers', () => {
    expect(parseOperationRequest(OP, decoded(OP, 'json', ALTER_JSON_TEXT))).toEqual({
      ok: true,
      value: {
        replicationId: GUID,
        sourceConnectionString: 'Data Source=src.example.com;User ID=repl;Password=New-Pa55',
        dataReplication: true,
        parallelTablesLimit: 8,
        changeTrackingBatchLimit: 250000,
        isContinuous: true,
        isLogErrorsOnly: false,
        tablesToInclude: ['[dbo].[AuditLog]'],
        warehouse: {
          accessType: 'AccessKey',
          accessKey: 'AKIAIOSFODNN7EXAMPLE',
          secretKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
          retentionDays: 5,
          timeoutInMins: 90,
        },
      },
    });
  });

  it.each([
    ['braces and upper case', `{${GUID.toUpperCase()}}`],
    ['surrounding spaces', `  ${GUID}  `],
  ])('normalises a ReplicationId with %s', (_case, id) => {
    for (const format of FORMATS) {
      const result = parse(format, { replicationId: id });
      expect(result).toEqual({ ok: true, value: { replicationId: GUID } });
    }
  });

  it.each(FORMATS)('accepts credentials without an AccessType: the merged configuration is checked later (%s)', (format) => {
    const result = parse(format, { replicationId: GUID, warehouse: { accessKey: 'AKIAIOSFODNN7EXAMPLE' } });
    expect(result).toEqual({ ok: true, value: { replicationId: GUID, warehouse: { accessKey: 'AKIAIOSFODNN7EXAMPLE' } } });
  });

  it.each(FORMATS)('accepts an AccessType change alone and a partial ReseedingSchedule (%s)', (format) => {
    const result = parse(format, { replicationId: GUID, warehouse: { accessType: 'iamrole' }, reseedingSchedule: { repeatIntervalInMinutes: '60' } });
    expect(result).toEqual({
      ok: true,
      value: { replicationId: GUID, warehouse: { accessType: 'IAMRole' }, reseedingSchedule: { repeatIntervalInMinutes: 60 } },
    });
  });
});

type Row = [rule: string, path: string[], value: unknown, label: string, reason: string];

const base = (): Tree => ({ replicationId: GUID.toUpperCase() });

/** One row per rule: a change to a minimal valid Alter, the label and a fragment of the reason. */
const ALTER_RULES: Row[] = [
  ['ReplicationId required', ['replicationId'], REMOVE, '{ReplicationId}', 'is required'],
  ['ReplicationId is a GUID', ['replicationId'], 'not-a-guid', '{ReplicationId}', "invalid value 'not-a-guid'. A ReplicationId is a GUID"],
  ['ReplicationId braces balanced', ['replicationId'], `{${GUID}`, '{ReplicationId}', 'A ReplicationId is a GUID'],
  ['AddUpdateTimestamp only at creation', ['addUpdateTimestamp'], 'true', '{AddUpdateTimestamp}', 'can be set only when the replication is created'],
  ['RebuildIndexes only at creation', ['rebuildIndexes'], 'true', '{RebuildIndexes}', 'can be set only when the replication is created'],
  ['Source group only at creation', ['source', 'connectionString'], 'x', '{Source}', 'change the connection string with SourceConnectionString'],
  ['ReplicationName at most 128', ['replicationName'], 'n'.repeat(129), '{ReplicationName}', 'A replication name is 1-128 characters'],
  ['ReplicationName not blank', ['replicationName'], '   ', '{ReplicationName}', 'must not be empty'],
  ['SourceConnectionString not empty', ['sourceConnectionString'], '', '{SourceConnectionString}', 'must not be empty'],
  ['DestinationConnectionString not empty', ['destinationConnectionString'], '', '{DestinationConnectionString}', 'must not be empty'],
  ['DataReplication true/false', ['dataReplication'], 'on', '{DataReplication}', 'Must be true or false'],
  ['SchemaReplication true/false', ['schemaReplication'], 'off', '{SchemaReplication}', 'Must be true or false'],
  ['ParallelTablesLimit positive', ['parallelTablesLimit'], '1.5', '{ParallelTablesLimit}', 'Must be a whole number'],
  ['ChangeTrackingBatchLimit positive', ['changeTrackingBatchLimit'], '0', '{ChangeTrackingBatchLimit}', "invalid value '0'. Must be a whole number"],
  ['CtProcessTimeoutInMinutes positive', ['ctProcessTimeoutInMinutes'], 'abc', '{CtProcessTimeoutInMinutes}', 'Must be a whole number'],
  ['SerializedCtProcessTimeoutInMinutes positive', ['serializedCtProcessTimeoutInMinutes'], '-1', '{SerializedCtProcessTimeoutInMinutes}', 'Must be a whole number'],
  ['AutoSerializedCtProcessTimeoutInMinutes positive', ['autoSerializedCtProcessTimeoutInMinutes'], '0', '{AutoSerializedCtProcessTimeoutInMinutes}', 'Must be a whole number'],
  ['IsContinuous true/false', ['isContinuous'], 'always', '{IsContinuous}', 'Must be true or false'],
  ['RepeatIntervalInMinutes positive', ['repeatIntervalInMinutes'], '-15', '{RepeatIntervalInMinutes}', 'Must be a whole number'],
  ['ScheduleIntervalTimeFrom time', ['scheduleIntervalTimeFrom'], '25:00:00 AM', '{ScheduleIntervalTimeFrom}', 'A time is hh:mm:ss AM'],
  ['ScheduleIntervalTimeTo time', ['scheduleIntervalTimeTo'], '11:60:00 PM', '{ScheduleIntervalTimeTo}', 'A time is hh:mm:ss AM'],
  ['IsLogErrorsOnly true/false', ['isLogErrorsOnly'], 'no', '{IsLogErrorsOnly}', 'Must be true or false'],
  ['AlertOnSuccessfulTableSchemaChanges true/false', ['alertOnSuccessfulTableSchemaChanges'], 'y', '{AlertOnSuccessfulTableSchemaChanges}', 'Must be true or false'],
  ['TablesToInclude syntax', ['tablesToInclude'], '[dbo]', '{TablesToInclude}', 'must be written [schema].[table]'],
  ['Warehouse.TimeoutInMins positive', ['warehouse', 'timeoutInMins'], '0', '{Warehouse\\TimeoutInMins}', 'Must be a whole number'],
  ['Warehouse.AccessType enumerated', ['warehouse', 'accessType'], 'Token', '{Warehouse\\AccessType}', 'Must be one of AccessKey, IAMRole'],
  ['Warehouse.BucketName rules apply', ['warehouse', 'bucketName'], 'Bad_Bucket', '{Warehouse\\BucketName}', 'A bucket name is 3-63 characters'],
  ['Warehouse.RetentionDays positive', ['warehouse', 'retentionDays'], '0', '{Warehouse\\RetentionDays}', 'Must be a whole number'],
  ['Warehouse.Password not empty', ['warehouse', 'password'], '', '{Warehouse\\Password}', 'must not be empty'],
  ['Warehouse.AccountId 12 digits', ['warehouse', 'accountId'], '1234', '{Warehouse\\AccountId}', 'An AccountId is 12 digits'],
  ['Warehouse has no unknown fields', ['warehouse', 'region'], 'us-east-1', '{Warehouse\\Region}', 'unknown field'],
  ['Warehouse.ExternalId is never the caller\'s', ['warehouse', 'externalId'], 'svc-chosen-by-caller', '{Warehouse\\ExternalId}', 'is issued by the service for AccessType=IAMRole'],
  ['ReseedingSchedule.FromTime time', ['reseedingSchedule', 'fromTime'], 'noon', '{ReseedingSchedule\\FromTime}', 'A time is hh:mm:ss AM'],
  ['ReseedingSchedule.NoPkTablesToInclude syntax', ['reseedingSchedule', 'noPkTablesToInclude'], '[dbo].[A],[dbo].[A]', '{ReseedingSchedule\\NoPkTablesToInclude}', 'lists [dbo].[A] more than once'],
  ['no unknown top-level fields', ['resetChangeTracking'], 'true', '{ResetChangeTracking}', 'unknown field'],
];

describe.each(FORMATS)('AlterWarehouseReplication rules (%s)', (format) => {
  it.each(ALTER_RULES)('%s', (_rule, path, value, label, reason) => {
    const result = parse(format, withChange(base(), path, value));
    const problems = result.ok ? [] : result.messages;
    expect(problems).toHaveLength(1);
    expect(problems[0]?.startsWith(`${label}: `)).toBe(true);
    expect(problems[0]).toContain(reason);
  });

  it.each([
    ['AccessKey', { accessType: 'AccessKey', accountId: '123456789012' }, '{Warehouse\\AccountId}: must not be given when AccessType is AccessKey'],
    ['AccessKey', { accessType: 'accesskey', roleName: 'Role' }, '{Warehouse\\RoleName}: must not be given when AccessType is AccessKey'],
    ['IAMRole', { accessType: 'IAMRole', accessKey: 'AKIAIOSFODNN7EXAMPLE' }, '{Warehouse\\AccessKey}: must not be given when AccessType is IAMRole'],
    ['IAMRole', { accessType: 'IAMRole', secretKey: 'secret' }, '{Warehouse\\SecretKey}: must not be given when AccessType is IAMRole'],
  ])('applies the %s credential rule to what is given', (_type, warehouse, message) => {
    expect(parse(format, { ...base(), warehouse })).toEqual({ ok: false, messages: [message] });
  });

  it('gives the exact message for AddUpdateTimestamp', () => {
    expect(parse(format, { ...base(), addUpdateTimestamp: 'false' })).toEqual({
      ok: false,
      messages: ['{AddUpdateTimestamp}: can be set only when the replication is created'],
    });
  });
});

describe('AlterWarehouseReplication: JSON-only shapes', () => {
  it('refuses a control character in ReplicationName', () => {
    const result = parseOperationRequest(OP, { replicationId: GUID, replicationName: 'Sales\u0007' });
    expect(result).toEqual({
      ok: false,
      messages: ['{ReplicationName}: invalid value: text must not contain control characters or unpaired surrogates (a control character U+0007 was sent)'],
    });
  });

  it('refuses a format character in ReplicationName by its own rule', () => {
    const result = parseOperationRequest(OP, { replicationId: GUID, replicationName: 'Sales\u202e' });
    expect(result).toEqual({ ok: false, messages: ["{ReplicationName}: invalid value 'Sales?'. A replication name has only printable characters"] });
  });

  it('counts ReplicationName length in characters, not code units', () => {
    const result = parseOperationRequest(OP, { replicationId: GUID, replicationName: '😀'.repeat(128) });
    expect(result.ok).toBe(true);
  });
});
