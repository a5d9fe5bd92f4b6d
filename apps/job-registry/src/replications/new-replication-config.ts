import { REPLICATION_DEFAULTS, type CreateReplicationRequest, type ReplicationConfig } from '@svc/contracts';

/** The stored configuration of a new replication: the Create fields plus the defaults of seed §2.2 / §8. */
export function newReplicationConfig(request: CreateReplicationRequest, replicationName: string): ReplicationConfig {
  return {
    replicationName,
    parallelTablesLimit: request.parallelTablesLimit,
    rebuildIndexes: request.rebuildIndexes,
    source: request.source,
    staging: request.staging,
    warehouse: { ...request.warehouse, timeoutInMins: REPLICATION_DEFAULTS.warehouseTimeoutInMins },
    addUpdateTimestamp: request.addUpdateTimestamp,
    tablesToInclude: request.tablesToInclude,
    ...(request.reseedingSchedule !== undefined && { reseedingSchedule: request.reseedingSchedule }),
    ...(request.validationSchedule !== undefined && { validationSchedule: request.validationSchedule }),
    dataReplication: REPLICATION_DEFAULTS.dataReplication,
    schemaReplication: REPLICATION_DEFAULTS.schemaReplication,
    changeTrackingBatchLimit: REPLICATION_DEFAULTS.changeTrackingBatchLimit,
    ctProcessTimeoutInMinutes: REPLICATION_DEFAULTS.ctProcessTimeoutInMinutes,
    serializedCtProcessTimeoutInMinutes: REPLICATION_DEFAULTS.serializedCtProcessTimeoutInMinutes,
    autoSerializedCtProcessTimeoutInMinutes: REPLICATION_DEFAULTS.autoSerializedCtProcessTimeoutInMinutes,
    isContinuous: REPLICATION_DEFAULTS.isContinuous,
    isLogErrorsOnly: REPLICATION_DEFAULTS.isLogErrorsOnly,
    alertOnSuccessfulTableSchemaChanges: REPLICATION_DEFAULTS.alertOnSuccessfulTableSchemaChanges,
  };
}

/** ReplicationName defaults to the source database name (seed §2.2). */
export const FALLBACK_REPLICATION_NAME = 'replication';
