import type { ReplicationConfig } from '@svc/contracts';

/** Key order of a replication's configuration: the seed's field order, then the Alter-only settings. */
const CONFIG_KEY_ORDER: Record<string, readonly string[]> = {
  '': [
    'replicationName', 'parallelTablesLimit', 'rebuildIndexes', 'source', 'staging', 'warehouse', 'addUpdateTimestamp',
    'tablesToInclude', 'reseedingSchedule', 'dataReplication', 'schemaReplication', 'changeTrackingBatchLimit',
    'ctProcessTimeoutInMinutes', 'serializedCtProcessTimeoutInMinutes', 'autoSerializedCtProcessTimeoutInMinutes',
    'isContinuous', 'repeatIntervalInMinutes', 'scheduleIntervalTimeFrom', 'scheduleIntervalTimeTo', 'isLogErrorsOnly',
    'alertOnSuccessfulTableSchemaChanges', 'validationSchedule',
  ],
  source: ['connectionString', 'encryptDataInTransit', 'changeTrackingRetentionPeriod', 'resetChangeTracking'],
  staging: ['connectionString', 'encryptDataInTransit', 'replicateCompatibilityLevel'],
  warehouse: [
    'accessType', 'accessKey', 'secretKey', 'accountId', 'roleName', 'externalId', 'bucketName', 'bucketFolderName', 'regionEndpoint',
    'retentionDays', 'url', 'databaseSchema', 'databaseName', 'username', 'password', 'scdType', 'timeoutInMins',
  ],
  reseedingSchedule: ['noPkTablesToInclude', 'pkTablesToInclude', 'fromTime', 'toTime', 'repeatIntervalInMinutes'],
  validationSchedule: ['fromTime', 'toTime', 'repeatIntervalInMinutes'],
};

function ordered(value: Record<string, unknown>, order: readonly string[], nested: boolean): Record<string, unknown> {
  const keys = [...order.filter((key) => key in value), ...Object.keys(value).filter((key) => !order.includes(key))];
  return Object.fromEntries(
    keys.map((key) => {
      const item = value[key];
      const childOrder = CONFIG_KEY_ORDER[key];
      const isGroup = nested && childOrder !== undefined && typeof item === 'object' && item !== null && !Array.isArray(item);
      return [key, isGroup ? ordered(item as Record<string, unknown>, childOrder, false) : item];
    }),
  );
}

/**
 * The configuration with its keys in the seed's order. PostgreSQL's jsonb does not keep key order, and
 * Describe should read like the Create request.
 */
export function inCanonicalOrder(config: ReplicationConfig): ReplicationConfig {
  return ordered(config as unknown as Record<string, unknown>, CONFIG_KEY_ORDER[''] ?? [], true) as unknown as ReplicationConfig;
}
