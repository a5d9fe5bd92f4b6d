import type { TestStack } from '@svc/system-testing';

export const SOURCE_PASSWORD = 'Src-Pa55word-e2e';
export const WAREHOUSE_PASSWORD = 'Wh-Pa55word-e2e';

/** Connection string with a password: trust auth ignores it, but it must never be echoed or logged. */
export function pgUrl(database: string, password = SOURCE_PASSWORD): string {
  return `postgres://postgres:${password}@127.0.0.1:5432/${database}`;
}

/** The seed's XML Create example (AccessKey form), pointed at the test stack's databases and S3 server. */
export function createXmlAccessKey(stack: TestStack, overrides: { bucketName?: string; sourceUrl?: string } = {}): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<CreateWarehouseReplicationRequest>
  <ParallelTablesLimit>10</ParallelTablesLimit>
  <RebuildIndexes>false</RebuildIndexes>
  <Source>
    <ConnectionString>${overrides.sourceUrl ?? pgUrl(stack.source.name)}</ConnectionString>
    <EncryptDataInTransit>false</EncryptDataInTransit>
    <ChangeTrackingRetentionPeriod>2 DAYS</ChangeTrackingRetentionPeriod>
  </Source>
  <Staging>
    <ConnectionString>${pgUrl(stack.staging.name)}</ConnectionString>
    <EncryptDataInTransit>false</EncryptDataInTransit>
    <ReplicateCompatibilityLevel>true</ReplicateCompatibilityLevel>
  </Staging>
  <Warehouse>
    <AccessType>AccessKey</AccessType>
    <AccessKey>${stack.s3.accessKeyId}</AccessKey>
    <SecretKey>${stack.s3.secretAccessKey}</SecretKey>
    <BucketName>${overrides.bucketName ?? 'e2e-accesskey-bucket'}</BucketName>
    <BucketFolderName>/replications</BucketFolderName>
    <RegionEndpoint>us-east-1</RegionEndpoint>
    <RetentionDays>7</RetentionDays>
    <Url>postgres://127.0.0.1:5432</Url>
    <DatabaseSchema>analytics</DatabaseSchema>
    <DatabaseName>${stack.warehouse.name}</DatabaseName>
    <Username>postgres</Username>
    <Password>${WAREHOUSE_PASSWORD}</Password>
    <ScdType>Type1</ScdType>
  </Warehouse>
  <AddUpdateTimestamp>true</AddUpdateTimestamp>
  <TablesToInclude>All</TablesToInclude>
</CreateWarehouseReplicationRequest>`;
}

/** The role and bucket of createJsonIamRole, for `stack.prepareIamRole`. */
export const IAM_ROLE_FIXTURE = { accountId: '123456789012', roleName: 'svc-replication-writer', bucketName: 'e2e-iamrole-bucket' } as const;

/** The seed's JSON Create example (IAMRole form): numbers and booleans as strings, resetChangeTracking. */
export function createJsonIamRole(stack: TestStack): string {
  return JSON.stringify({
    parallelTablesLimit: '4',
    rebuildIndexes: 'false',
    source: {
      connectionString: pgUrl(stack.source.name),
      encryptDataInTransit: 'false',
      changeTrackingRetentionPeriod: '12 HOURS',
      resetChangeTracking: false,
    },
    staging: { connectionString: pgUrl(stack.staging.name), encryptDataInTransit: 'false', replicateCompatibilityLevel: 'false' },
    warehouse: {
      accessType: 'IAMRole',
      accountId: IAM_ROLE_FIXTURE.accountId,
      roleName: IAM_ROLE_FIXTURE.roleName,
      bucketName: IAM_ROLE_FIXTURE.bucketName,
      bucketFolderName: '/dw',
      regionEndpoint: 'us-east-1',
      retentionDays: 3,
      url: 'postgres://127.0.0.1:5432',
      databaseSchema: 'dw',
      databaseName: stack.warehouse.name,
      username: 'postgres',
      password: WAREHOUSE_PASSWORD,
      scdType: 'Type2',
    },
    addUpdateTimestamp: 'false',
    tablesToInclude: '[public].[orders],[sales].[customers]',
    reseedingSchedule: {
      noPkTablesToInclude: '[public].[audit_log]',
      pkTablesToInclude: '[public].[products]',
      fromTime: '01:00:00 AM',
      toTime: '05:30:00 AM',
      repeatIntervalInMinutes: '60',
    },
  });
}

/** The seed's XML Alter example shape. */
export function alterXml(replicationId: string): string {
  return `<AlterWarehouseReplicationRequest>
  <ReplicationId>${replicationId}</ReplicationId>
  <ReplicationName>orders-to-warehouse</ReplicationName>
  <DataReplication>true</DataReplication>
  <SchemaReplication>true</SchemaReplication>
  <ParallelTablesLimit>6</ParallelTablesLimit>
  <ChangeTrackingBatchLimit>250000</ChangeTrackingBatchLimit>
  <CtProcessTimeoutInMinutes>45</CtProcessTimeoutInMinutes>
  <IsContinuous>false</IsContinuous>
  <RepeatIntervalInMinutes>15</RepeatIntervalInMinutes>
  <ScheduleIntervalTimeFrom>12:20:00 AM</ScheduleIntervalTimeFrom>
  <ScheduleIntervalTimeTo>11:40:00 PM</ScheduleIntervalTimeTo>
  <IsLogErrorsOnly>false</IsLogErrorsOnly>
  <AlertOnSuccessfulTableSchemaChanges>true</AlertOnSuccessfulTableSchemaChanges>
  <Warehouse>
    <RetentionDays>14</RetentionDays>
    <TimeoutInMins>90</TimeoutInMins>
  </Warehouse>
</AlterWarehouseReplicationRequest>`;
}

/** The seed's JSON Alter example shape: the GUID unquoted, numbers and booleans quoted except two. */
export function alterJsonUnquotedGuid(replicationId: string): string {
  return `{
  "replicationId": ${replicationId.toUpperCase()},
  "dataReplication": "false",
  "changeTrackingBatchLimit": "100000",
  "warehouse": { "retentionDays": 30, "timeoutInMins": 120, "databaseSchema": "dw_v2" },
  "reseedingSchedule": { "repeatIntervalInMinutes": "120" }
}`;
}
