import type { ReplicationConfig } from '@svc/contracts';
import { fieldLabel } from '@svc/api-model';
import { REACHABILITY_FIELDS } from '@svc/connectors';
import type { ReachabilityTarget, StagingPreparationTarget } from './reachability-probe';

/** Warehouse fields that decide whether the warehouse database or the bucket can be reached. */
const WAREHOUSE_CONNECTION_FIELDS = new Set([
  'accessType',
  'accessKey',
  'secretKey',
  'accountId',
  'roleName',
  'bucketName',
  'bucketFolderName',
  'regionEndpoint',
  'url',
  'databaseName',
  'username',
  'password',
]);

/**
 * What an Alter must re-check: only the groups whose connection-relevant fields changed. Null when nothing
 * reachable changed (e.g. only ParallelTablesLimit or the SCD type).
 */
export function reachabilityTargetForChanges(config: ReplicationConfig, changedPaths: readonly string[]): ReachabilityTarget | null {
  const changed = (group: string, fields?: ReadonlySet<string>): boolean =>
    changedPaths.some((path) => {
      const [head, field] = path.split('.');
      return head === group && field !== undefined && (fields === undefined || fields.has(field));
    });
  const target: ReachabilityTarget = {
    ...(changed('source', new Set(['connectionString', 'encryptDataInTransit'])) && {
      source: { connectionString: config.source.connectionString, encryptDataInTransit: config.source.encryptDataInTransit },
    }),
    ...(changed('staging', new Set(['connectionString', 'encryptDataInTransit'])) && {
      staging: { connectionString: config.staging.connectionString, encryptDataInTransit: config.staging.encryptDataInTransit },
    }),
    ...(changed('warehouse', WAREHOUSE_CONNECTION_FIELDS) && { warehouse: config.warehouse }),
  };
  return target.source || target.staging || target.warehouse ? target : null;
}

/** What preparing the staging database needs, from a Create request or a stored configuration. */
export function stagingPreparationOf(config: Pick<ReplicationConfig, 'source' | 'staging'>): StagingPreparationTarget {
  return {
    source: { connectionString: config.source.connectionString, encryptDataInTransit: config.source.encryptDataInTransit },
    staging: { connectionString: config.staging.connectionString, encryptDataInTransit: config.staging.encryptDataInTransit },
    replicateCompatibilityLevel: config.staging.replicateCompatibilityLevel,
  };
}

/** An Alter readies the staging database again when it names another source or staging database, or asks for the source's compatibility level. */
export function stagingPreparationNeeded(changedPaths: readonly string[]): boolean {
  return changedPaths.some((path) => ['source.connectionString', 'staging.connectionString', 'staging.replicateCompatibilityLevel'].includes(path));
}

const ALTER_FIELD_NAMES: ReadonlyMap<string, string> = new Map([
  [`{${REACHABILITY_FIELDS.source}}`, fieldLabel(['sourceConnectionString'])],
  [`{${REACHABILITY_FIELDS.staging}}`, fieldLabel(['destinationConnectionString'])],
]);

/** Names a probe failure after the Alter field the caller sent: `{SourceConnectionString}`, `{DestinationConnectionString}`. */
export function inAlterTerms(message: string): string {
  for (const [probeName, alterName] of ALTER_FIELD_NAMES) {
    if (message.startsWith(probeName)) return alterName + message.slice(probeName.length);
  }
  return message;
}
