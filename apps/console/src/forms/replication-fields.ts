import { ACCESS_TYPES, RETENTION_PERIODS, SCD_TYPES } from '@svc/contracts/browser';
import type { FieldSpec } from './form-spec.js';

const BOOLEAN = ['false', 'true'] as const;

/** The warehouse group (docs/API.md, CreateWarehouseReplication), shared by Create and Alter. */
function warehouseFields(optional: boolean): FieldSpec[] {
  const choice = (name: string, choices: readonly string[], hint: string, initial: string): FieldSpec => ({
    path: ['Warehouse', name],
    kind: 'choice',
    choices,
    hint,
    ...(optional ? { optional } : { initial }),
  });
  return [
    choice('AccessType', ACCESS_TYPES, 'AccessKey: the keys below sign bucket access; IAMRole: the account and role', 'AccessKey'),
    { path: ['Warehouse', 'AccessKey'], kind: 'secret', hint: 'bucket access key id (AccessType=AccessKey)' },
    { path: ['Warehouse', 'SecretKey'], kind: 'secret', hint: 'bucket secret key (AccessType=AccessKey)' },
    { path: ['Warehouse', 'AccountId'], kind: 'text', hint: 'cloud account id (AccessType=IAMRole)' },
    { path: ['Warehouse', 'RoleName'], kind: 'text', hint: 'role name (AccessType=IAMRole)' },
    { path: ['Warehouse', 'BucketName'], kind: 'text', hint: 'bucket the batch files are written to' },
    { path: ['Warehouse', 'BucketFolderName'], kind: 'text', hint: 'folder in the bucket, e.g. /replications/sales' },
    { path: ['Warehouse', 'RegionEndpoint'], kind: 'text', hint: 'region of the bucket, e.g. us-east-1' },
    { path: ['Warehouse', 'RetentionDays'], kind: 'integer', hint: 'days batch files are kept' },
    { path: ['Warehouse', 'Url'], kind: 'secret', hint: 'warehouse host:port (postgres://host:port for PostgreSQL)' },
    { path: ['Warehouse', 'DatabaseSchema'], kind: 'text', hint: 'schema that receives the tables' },
    { path: ['Warehouse', 'DatabaseName'], kind: 'text', hint: 'warehouse database' },
    { path: ['Warehouse', 'Username'], kind: 'text', hint: 'warehouse user' },
    { path: ['Warehouse', 'Password'], kind: 'secret', hint: 'warehouse password' },
    choice('ScdType', SCD_TYPES, 'Type1 overwrites rows; Type2 keeps their history', 'Type1'),
  ];
}

function reseedingFields(): FieldSpec[] {
  return [
    { path: ['ReseedingSchedule', 'NoPkTablesToInclude'], kind: 'text', hint: 'tables without a primary key to reseed, [schema].[table], comma-separated, or All' },
    { path: ['ReseedingSchedule', 'PkTablesToInclude'], kind: 'text', hint: 'tables with a primary key, not in TablesToInclude, to reseed' },
    { path: ['ReseedingSchedule', 'FromTime'], kind: 'text', hint: 'start of the reseed window, hh:mm:ss AM' },
    { path: ['ReseedingSchedule', 'ToTime'], kind: 'text', hint: 'end of the reseed window, hh:mm:ss PM' },
    { path: ['ReseedingSchedule', 'RepeatIntervalInMinutes'], kind: 'integer', hint: 'minutes between reseeds' },
  ];
}

/** Not in the original specification: the registry validates the replication by itself (README, "On a schedule"). */
function validationScheduleFields(): FieldSpec[] {
  return [
    { path: ['ValidationSchedule', 'FromTime'], kind: 'text', hint: 'start of the daily window a scheduled validation may start in, hh:mm:ss AM (UTC)' },
    { path: ['ValidationSchedule', 'ToTime'], kind: 'text', hint: 'end of that window, hh:mm:ss PM' },
    { path: ['ValidationSchedule', 'RepeatIntervalInMinutes'], kind: 'integer', hint: 'minutes between validations of every table; 0 turns the schedule off' },
  ];
}

/** CreateWarehouseReplication, in the order of docs/API.md. A schedule group is sent only when one of its fields is filled. */
export const CREATE_FIELDS: readonly FieldSpec[] = [
  { path: ['ParallelTablesLimit'], kind: 'integer', hint: 'tables copied at once (10 suits a large managed instance or smaller)', initial: '4' },
  { path: ['RebuildIndexes'], kind: 'boolean', choices: BOOLEAN, hint: 'rebuild indexes in the destination', initial: 'false' },
  { path: ['Source', 'ConnectionString'], kind: 'secret', hint: 'source database, e.g. postgres://user:password@host:5432/db' },
  { path: ['Source', 'EncryptDataInTransit'], kind: 'boolean', choices: BOOLEAN, hint: 'TLS to the source', initial: 'false' },
  { path: ['Source', 'ChangeTrackingRetentionPeriod'], kind: 'choice', choices: RETENTION_PERIODS, hint: 'how long change tracking keeps changes', initial: '2 Days' },
  { path: ['Source', 'ResetChangeTracking'], kind: 'boolean', choices: BOOLEAN, hint: 're-initialise change tracking', optional: true },
  { path: ['Staging', 'ConnectionString'], kind: 'secret', hint: 'staging database (same engine as the source)' },
  { path: ['Staging', 'EncryptDataInTransit'], kind: 'boolean', choices: BOOLEAN, hint: 'TLS to staging', initial: 'false' },
  { path: ['Staging', 'ReplicateCompatibilityLevel'], kind: 'boolean', choices: BOOLEAN, hint: "copy the source's compatibility level (SQL Server)", initial: 'false' },
  ...warehouseFields(false),
  { path: ['AddUpdateTimestamp'], kind: 'boolean', choices: BOOLEAN, hint: 'add svc_sys_update_timestamp to each warehouse table (only at creation)', initial: 'false' },
  { path: ['TablesToInclude'], kind: 'text', hint: '[schema].[table], comma-separated, or All', initial: 'All' },
  ...reseedingFields(),
  ...validationScheduleFields(),
];

/** AlterWarehouseReplication (docs/API.md): every field optional, sent only when filled. */
export const ALTER_FIELDS: readonly FieldSpec[] = [
  { path: ['ReplicationName'], kind: 'text', hint: 'friendly name' },
  { path: ['SourceConnectionString'], kind: 'secret', hint: 'new source connection string (login or password change)' },
  { path: ['DestinationConnectionString'], kind: 'secret', hint: 'new staging connection string' },
  { path: ['DataReplication'], kind: 'boolean', choices: BOOLEAN, hint: 'turn data movement of this replication on or off', optional: true },
  { path: ['SchemaReplication'], kind: 'boolean', choices: BOOLEAN, hint: 'replicate schema changes', optional: true },
  { path: ['ParallelTablesLimit'], kind: 'integer', hint: 'tables replicated at once' },
  { path: ['ChangeTrackingBatchLimit'], kind: 'integer', hint: 'change records per table per read (default 500000); a larger backlog takes several' },
  { path: ['CtProcessTimeoutInMinutes'], kind: 'integer', hint: 'change cycle timeout (default 30; doubles after a cancel, twice)' },
  { path: ['SerializedCtProcessTimeoutInMinutes'], kind: 'integer', hint: 'serialized mode: start the next after this long (default 30)' },
  { path: ['AutoSerializedCtProcessTimeoutInMinutes'], kind: 'integer', hint: 'automatic serialization: start the next after this long (default 30)' },
  { path: ['IsContinuous'], kind: 'boolean', choices: BOOLEAN, hint: 'run continuously; false: every RepeatIntervalInMinutes', optional: true },
  { path: ['RepeatIntervalInMinutes'], kind: 'integer', hint: 'run interval when IsContinuous=false' },
  { path: ['ScheduleIntervalTimeFrom'], kind: 'text', hint: 'daily window start, e.g. 12:20:00 AM' },
  { path: ['ScheduleIntervalTimeTo'], kind: 'text', hint: 'daily window end' },
  { path: ['IsLogErrorsOnly'], kind: 'boolean', choices: BOOLEAN, hint: 'false: detailed run logs', optional: true },
  { path: ['AlertOnSuccessfulTableSchemaChanges'], kind: 'boolean', choices: BOOLEAN, hint: 'alert on applied schema changes', optional: true },
  { path: ['TablesToInclude'], kind: 'text', hint: '[schema].[table], comma-separated, or All' },
  ...warehouseFields(true),
  { path: ['Warehouse', 'TimeoutInMins'], kind: 'integer', hint: 'warehouse statement timeout (default 60)' },
  ...reseedingFields(),
  ...validationScheduleFields(),
];
