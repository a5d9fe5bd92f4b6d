import type { AlterReplicationRequest, ReplicationConfig } from '@svc/contracts';
import { fieldLabel } from '@svc/api-model';
import { misdirectedSecrets } from './secret-recipients';

export type MergeResult = { ok: true; config: ReplicationConfig } | { ok: false; messages: string[] };

type StoredWarehouse = ReplicationConfig['warehouse'];

/** The groups an Alter merges member by member, and the member names its first setting must give, as the API spells them. */
const RESEEDING_SCHEDULE = {
  group: 'reseedingSchedule',
  members: ['noPkTablesToInclude', 'pkTablesToInclude', 'fromTime', 'toTime', 'repeatIntervalInMinutes'],
  named: 'NoPkTablesToInclude, PkTablesToInclude, FromTime, ToTime and RepeatIntervalInMinutes',
  what: 'reseeding schedule',
} as const;
const VALIDATION_SCHEDULE = { group: 'validationSchedule', members: ['fromTime', 'toTime', 'repeatIntervalInMinutes'], named: 'FromTime, ToTime and RepeatIntervalInMinutes', what: 'validation schedule' } as const;

/**
 * Applies an Alter request to a stored configuration (seed §2.2: a field is passed only when it changes).
 * SourceConnectionString replaces source.connectionString; DestinationConnectionString replaces
 * staging.connectionString, because the seed's "destination (replica)" database is the staging database.
 * Warehouse, ReseedingSchedule and ValidationSchedule are merged member by member; every other field replaces the stored one.
 * A stored secret the request leaves as it is may not go anywhere new (secret-recipients.ts). Cross-field rules of
 * the result are checked afterwards (validateMergedConfig).
 */
export function mergeAlterRequest(current: ReplicationConfig, request: AlterReplicationRequest): MergeResult {
  const reseeding = mergeCompleteGroup(RESEEDING_SCHEDULE, current.reseedingSchedule, request.reseedingSchedule);
  const validating = mergeCompleteGroup(VALIDATION_SCHEDULE, current.validationSchedule, request.validationSchedule);
  if (!reseeding.ok || !validating.ok) return { ok: false, messages: [...(reseeding.ok ? [] : reseeding.messages), ...(validating.ok ? [] : validating.messages)] };

  const replaced = definedOnly({
    replicationName: request.replicationName,
    dataReplication: request.dataReplication,
    schemaReplication: request.schemaReplication,
    parallelTablesLimit: request.parallelTablesLimit,
    changeTrackingBatchLimit: request.changeTrackingBatchLimit,
    ctProcessTimeoutInMinutes: request.ctProcessTimeoutInMinutes,
    serializedCtProcessTimeoutInMinutes: request.serializedCtProcessTimeoutInMinutes,
    autoSerializedCtProcessTimeoutInMinutes: request.autoSerializedCtProcessTimeoutInMinutes,
    isContinuous: request.isContinuous,
    repeatIntervalInMinutes: request.repeatIntervalInMinutes,
    scheduleIntervalTimeFrom: request.scheduleIntervalTimeFrom,
    scheduleIntervalTimeTo: request.scheduleIntervalTimeTo,
    isLogErrorsOnly: request.isLogErrorsOnly,
    alertOnSuccessfulTableSchemaChanges: request.alertOnSuccessfulTableSchemaChanges,
    tablesToInclude: request.tablesToInclude,
  });
  const config: ReplicationConfig = {
    ...current,
    ...replaced,
    source:
      request.sourceConnectionString === undefined ? current.source : { ...current.source, connectionString: request.sourceConnectionString },
    staging:
      request.destinationConnectionString === undefined
        ? current.staging
        : { ...current.staging, connectionString: request.destinationConnectionString },
    warehouse: mergeWarehouse(current.warehouse, request.warehouse),
  };
  // A caller allowed only Alter must not send a stored password or key to a server or bucket of its own: the probe
  // and the workers would use it there at once.
  const misdirected = misdirectedSecrets(current, config, request);
  if (misdirected.length) return { ok: false, messages: misdirected };
  if (reseeding.group === undefined) delete config.reseedingSchedule;
  else config.reseedingSchedule = reseeding.group;
  if (validating.group === undefined) delete config.validationSchedule;
  else config.validationSchedule = validating.group;
  return { ok: true, config };
}

/** Switching AccessType drops the other type's credentials; the request then supplies its own. */
function mergeWarehouse(current: StoredWarehouse, changes: AlterReplicationRequest['warehouse']): StoredWarehouse {
  if (changes === undefined) return current;
  const base: StoredWarehouse = { ...current };
  if (changes.accessType !== undefined && changes.accessType !== current.accessType) {
    switch (changes.accessType) {
      case 'IAMRole':
        delete base.accessKey;
        delete base.secretKey;
        break;
      case 'AccessKey':
        delete base.accountId;
        delete base.roleName;
        break;
    }
  }
  return { ...base, ...definedOnly(changes) };
}

/** Merges a group's members into the stored group; a group not stored yet must be given whole. */
function mergeCompleteGroup<T extends object>(
  shape: { group: string; members: readonly (keyof T & string)[]; named: string; what: string },
  current: T | undefined,
  changes: Partial<T> | undefined,
): { ok: true; group: T | undefined } | { ok: false; messages: string[] } {
  if (changes === undefined) return { ok: true, group: current };
  const merged: Partial<T> = { ...current, ...definedOnly(changes) };
  const missing = shape.members.filter((member) => merged[member] === undefined);
  if (missing.length) {
    return {
      ok: false,
      messages: missing.map(
        (member) => `${fieldLabel([shape.group, member])}: is required: the replication has no ${shape.what} yet, so the first one must give all of ${shape.named}`,
      ),
    };
  }
  return { ok: true, group: merged as T };
}

/** A copy without the keys whose value is undefined, so spreading it never erases a stored value. */
function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}
