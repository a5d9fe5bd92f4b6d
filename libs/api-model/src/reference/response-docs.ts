import type { DifferingKeyOnWire, KeyColumnOnWire, TableValidationOnWire, ValidationDescriptionOnWire } from '@svc/api-codec';
import {
  DIFFERENCE_KINDS,
  FINAL_VALIDATION_STATES,
  REPLICATION_STATUSES,
  SECRET_MASK,
  TABLE_PHASES,
  VALIDATION_MAX_KEYS_SHOWN,
  VALIDATION_STATES,
  type AccessKeyDescription,
  type AlertDelivery,
  type AlertRecord,
  type AlertTargetDescription,
  type MetricsPoint,
  type OperationName,
  type OperationResponse,
  type ReplicationDescription,
  type ReplicationSummary,
  type TableMetricsHistory,
  type TableStatus,
} from '@svc/contracts';

/** One line of a response table: the field (lower camel path; `[item]` is one element of a list) and what it holds. */
export interface ResponseField {
  path: string[];
  description: string;
}

/** A sentence for every key of `T`, so that a field added to a response type must be documented here. */
type Described<T> = { [Key in keyof T]-?: string };

function fields<T>(prefix: string[], described: Described<T>): ResponseField[] {
  return Object.entries<string>(described).map(([key, description]) => ({ path: [...prefix, key], description }));
}

type ResponseDocs = { [Op in OperationName]: OperationResponse<Op> extends null ? null : ResponseField[] };

const summary: Described<ReplicationSummary> = {
  replicationId: 'The replication (GUID)',
  replicationName: 'Its name',
  status: `One of ${REPLICATION_STATUSES.join(', ')}; Stopped: DataReplication is false or the service is stopped`,
  tableCount: 'The tables it moves',
  tablesInError: 'How many of them are in Error: their work is stopped until the cause (the table\'s LastError) is fixed',
  statusDetail: 'What the status alone hides: that some or every table is in Error (a Running replication whose every table is in Error moves nothing); absent when none is',
  stoppedReason: 'Why a Stopped or Failed replication moves no data, and which call resumes it: the service is stopped (StartReplication without a ReplicationId), DataReplication is false (StartReplication with its ReplicationId), or it failed (LastError says why); absent while it runs',
};

const table: Described<TableStatus> = {
  name: '[schema].[table]',
  phase: `One of ${TABLE_PHASES.join(', ')}`,
  rowsSeeded: 'Rows copied by the current or last seed',
  rowsEstimated: "The source's estimate of the table's rows",
  seedChunksLoaded: 'While the table is seeded in key-range chunks: the chunks in the warehouse (a seed interrupted resumes from them)',
  seedChunks: 'While the table is seeded in key-range chunks: how many it was cut into (its close follows the last)',
  lastVersion: 'The last change-tracking version applied; absent before the first',
  lagSeconds: 'Seconds between the newest change applied and now; absent without one',
  lastError: 'Why its last work failed, as a classified reason; absent when none',
  lastErrorDetail: "The database's own words for that failure, redacted; only for keys allowed DescribeReplicationErrorDetails",
  lastCycleAt: 'When its last unit of work ended',
  nextAttemptAt: 'While it waits out the backoff after a failure: when it is tried again',
  ctTimeoutInMinutes: 'CtProcessTimeoutInMinutes in force for its next change cycle (doubled after a cancel)',
  workStartedAt: 'When its work in flight began; absent while it has none',
  inFlightSeconds: 'Seconds its work has been in flight',
  lastProgressAt: 'Last sign of progress (heartbeat, part or batch loaded): far behind with work in flight means a stall',
  lastValidation:
    'Its last finished validation: ValidationId, State (Validated, Mismatched or Repaired), MismatchedKeys and EndedAt; absent before any (DescribeReplicationValidation has the rest)',
};

const alert: Described<AlertRecord> = {
  alertId: 'The alert',
  replicationId: 'Its replication',
  kind: 'SchemaChange, Reseed, Failure, RetentionDanger, Validation or TableAdded',
  message: 'What happened',
  createdAt: 'When (ISO 8601, UTC)',
  tableName: 'The table it is about; absent for one about the whole replication',
  state:
    'Active, Acknowledged (AcknowledgeAlerts) or Resolved: a Failure or RetentionDanger alert resolves itself when the table (or the replication) works again, a Validation alert when a later validation finds the table equal',
  acknowledgedAt: 'When it was acknowledged',
  acknowledgedBy: 'The access key that acknowledged it',
  resolvedAt: 'When its condition ended',
  resolution: 'Why it resolved',
  deliveries: 'One Delivery per alert target it was meant for (PutAlertTarget); absent when none was',
};

const delivery: Described<AlertDelivery> = {
  target: 'The alert target (its Name)',
  state: 'Pending (not yet delivered: waiting for its first try or retrying), Delivered, or Failed (refused by the target, or still failing after 24 hours)',
  attempts: 'Attempts made so far',
  deliveredAt: 'When the target accepted it',
  lastError: 'Why the last attempt failed; absent once delivered',
  nextAttemptAt: 'While Pending: when it is tried next',
};

const alertTarget: Described<AlertTargetDescription> = {
  name: 'The target',
  type: 'Webhook, Sns or Email',
  endpoint: "Webhook: the URL's scheme and host (the rest may be a secret and is never answered)",
  topicArn: 'Sns: the topic',
  smtpServer: 'Email: the SMTP server (host:port), without credentials',
  from: 'Email: the sender',
  to: 'Email: the recipients',
  alertKinds: 'The kinds it receives; absent for every kind',
  replicationIds: 'The replications whose alerts it receives; absent for every replication',
  createdAt: 'When it was created',
  updatedAt: 'When it was last replaced',
  deliveries: 'Delivered, Pending and Failed counts, LastDeliveredAt, LastError and LastErrorAt',
};

const accessKey: Described<AccessKeyDescription> = {
  accessKeyId: 'The key id',
  status: 'Active, Disabled or Expired',
  replicationScope: 'Own or All',
  allowedOperations: "Operation names, or '*'",
  description: 'As given at creation',
  bootstrap: "true for the service's bootstrap key",
  createdAt: 'When it was created',
  createdBy: 'The key that created it over the API; absent for the bootstrap key and keys made by an operator',
  expiresAt: 'When it stops signing; absent when it never expires',
  previousSecretValidUntil: 'After a rotation: until when the replaced secret still signs',
};

const metricsTable: Described<TableMetricsHistory> = { name: '[schema].[table]', points: 'One point per step with activity' };
const point: Described<MetricsPoint> = {
  at: 'Start of the step (ISO 8601, UTC)',
  cycles: 'Change cycles that completed',
  rowsApplied: 'Rows applied to the warehouse (change rows and seed rows)',
  lagSeconds: 'Lag of the last cycle in the step',
  maxLagSeconds: 'Highest lag in the step',
  avgCycleMs: 'Mean cycle duration',
  maxCycleMs: 'Longest cycle duration',
};

const validation: Described<Omit<ValidationDescriptionOnWire, 'tables'>> = {
  replicationId: 'The replication',
  validationId: 'The validation (GUID)',
  requestedAt: 'When it was requested (ISO 8601, UTC)',
  scheduled: 'true when the registry started it by itself (the replication\'s ValidationSchedule, or the comparison that follows a repair by reseed) rather than a request',
};
const tableValidation: Described<TableValidationOnWire> = {
  name: '[schema].[table]',
  state: `One of ${VALIDATION_STATES.join(', ')}; ${FINAL_VALIDATION_STATES.join(', ')} are final`,
  reason: 'Why it was Skipped or Failed; absent otherwise',
  rowsCompared: 'Source rows compared so far',
  rowsEstimated: "The source's estimate of the table's rows; absent until the comparison starts",
  mismatchedKeys: 'Keys that still differed when checked again: MissingKeys + ExtraKeys + DifferentKeys',
  missingKeys: 'Keys the source has and the warehouse lacks',
  extraKeys: 'Keys the warehouse has and the source does not (or a second current row of a Type2 key)',
  differentKeys: 'Keys whose other values differ',
  unsettledKeys: 'Keys that changed in the source every time they were checked again, so could not be compared at rest; not counted as differences',
  differingKeys: `The first differing keys, at most ${VALIDATION_MAX_KEYS_SHOWN}, in no particular order (the counts cover every one)`,
  sourceVersion: 'The source version the comparison was pinned to; absent before it started',
  startedAt: "When the table's comparison started; absent before",
  endedAt: 'When it ended; absent until then',
};
const differingKey: Described<DifferingKeyOnWire> = {
  key: "The key's columns, never other values",
  difference: `${DIFFERENCE_KINDS.join(', ')}: absent from the warehouse, only in the warehouse, or other values`,
};
const keyColumn: Described<KeyColumnOnWire> = {
  name: 'Column name',
  value: 'Its value as validation compares it (canonical text); absent for NULL',
};

const description: Described<Omit<ReplicationDescription, keyof ReplicationSummary>> = {
  createdAt: 'When it was created (ISO 8601, UTC)',
  updatedAt: 'When its configuration last changed',
  configuration: `The stored configuration: every Create field plus the Alter settings, secrets shown as ${SECRET_MASK}`,
  tables: 'One Table per replicated table',
  lastError: 'Why the replication failed, as a classified reason; absent when it did not',
  lastErrorDetail: "The database's own words for it, redacted; only for keys allowed DescribeReplicationErrorDetails",
  alerts: 'Recent alerts',
};

/** Fields of each success answer; null: an empty 200. Checked against the response types by the compiler. */
export const RESPONSE_DOCS: ResponseDocs = {
  CreateWarehouseReplication: [
    { path: ['replicationId'], description: 'The new replication (GUID): every later call names it' },
    { path: ['status'], description: 'Running' },
    { path: ['note'], description: 'What the service noticed while checking the request; may be empty' },
    { path: ['warehouse', 'externalId'], description: "AccessType IAMRole only: the ExternalId the role's trust policy must require" },
  ],
  AlterWarehouseReplication: null,
  DescribeWarehouseReplication: [
    ...fields([], summary),
    ...fields([], description),
    ...fields(['tables', '[table]'], table),
    ...fields(['alerts', '[alert]'], alert),
    ...fields(['alerts', '[alert]', 'deliveries', '[delivery]'], delivery),
  ],
  ListWarehouseReplications: fields(['replications', '[replication]'], summary),
  DeleteWarehouseReplication: null,
  StopReplicationService: null,
  StopReplication: null,
  AcknowledgeAlerts: [{ path: ['Acknowledged'], description: 'How many active alerts this call acknowledged' }],
  StartReplication: null,
  AlterConfiguration: null,
  GetReplicationMetrics: [
    { path: ['replicationId'], description: 'The replication' },
    { path: ['sinceMinutes'], description: 'Minutes of history answered' },
    { path: ['stepMinutes'], description: 'Minutes per point' },
    ...fields(['tables', '[table]'], metricsTable),
    ...fields(['tables', '[table]', 'points', '[point]'], point),
  ],
  StartReplicationValidation: [
    { path: ['replicationId'], description: 'The replication' },
    { path: ['validationId'], description: 'The new validation (GUID): DescribeReplicationValidation names it' },
  ],
  DescribeReplicationValidation: [
    ...fields([], validation),
    { path: ['tables'], description: 'One Table per table compared' },
    ...fields(['tables', '[table]'], tableValidation),
    ...fields(['tables', '[table]', 'differingKeys', '[differingKey]'], differingKey),
    ...fields(['tables', '[table]', 'differingKeys', '[differingKey]', 'key', '[column]'], keyColumn),
  ],
  RepairReplication: [
    { path: ['replicationId'], description: 'The replication' },
    { path: ['validationId'], description: 'The validation repaired' },
    {
      path: ['tables'],
      description: 'The tables queued for repair, [schema].[table] separated by commas (a list in JSON); each is Pending, then Repairing, then Repaired or Mismatched',
    },
  ],
  CreateAccessKey: [
    { path: ['accessKeyId'], description: 'The new key id' },
    { path: ['secretAccessKey'], description: 'Its secret: shown this once, never again' },
    { path: ['allowedOperations'], description: 'The operations it may call' },
    { path: ['replicationScope'], description: 'Own or All' },
    { path: ['expiresAt'], description: 'When it expires; absent when it never does' },
  ],
  ListAccessKeys: fields(['accessKeys', '[accessKey]'], accessKey),
  UpdateAccessKey: null,
  DeleteAccessKey: null,
  RotateAccessKey: [
    { path: ['accessKeyId'], description: 'The key' },
    { path: ['secretAccessKey'], description: 'Its new secret: shown this once' },
    { path: ['previousSecretValidUntil'], description: 'Until when the replaced secret still signs' },
  ],
  PutAlertTarget: null,
  ListAlertTargets: fields(['alertTargets', '[alertTarget]'], alertTarget),
  DeleteAlertTarget: null,
};
