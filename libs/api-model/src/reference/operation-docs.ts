import { type OperationName } from '@svc/contracts';

/** A request body as a client writes it: lower camel keys, text values, groups nested. */
export type ExampleTree = { [field: string]: string | ExampleTree };

export interface OperationDoc {
  purpose: string;
  /** HTTP errors beyond those every operation can give (400 by field, 403, 413, 415, 503). */
  errors: string[];
  example: ExampleTree;
  /** What a left-out optional field without a default of its own means, e.g. 'unchanged'. */
  absent?: string;
}

const REPLICATION_ID = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const KEY_ID = 'AKEXAMPLEKEYID000001';
const VALIDATION_ID = '9b2e7c1a-3d4f-4e5a-8b6c-7d8e9f0a1b2c';
const NOT_FOUND_REPLICATION = "404 `{ReplicationId}: replication '…' does not exist` (also for a replication the key's scope does not cover)";
const BEING_DELETED = "400 `{ReplicationId}: replication '…' is being deleted`";
const CHANGED_CONCURRENTLY = '400 `{ReplicationId}: … was changed by another request at the same time; send the change again`';
const SERVICE_WIDE = '403 for a key with ReplicationScope Own: the operation acts on every replication';
const NOT_FOUND_KEY = "404 `{AccessKeyId}: access key '…' does not exist` (also for a key the caller may not manage)";

/** Every placeholder secret says so; none is a working credential. */
const createExample: ExampleTree = {
  parallelTablesLimit: '4',
  rebuildIndexes: 'false',
  source: {
    connectionString: 'Data Source=source.example.com;Initial Catalog=Sales;User ID=replicator;Password=YOUR-SOURCE-PASSWORD',
    encryptDataInTransit: 'true',
    changeTrackingRetentionPeriod: '2 Days',
  },
  staging: {
    connectionString: 'Data Source=staging.example.com;Initial Catalog=Staging;User ID=replicator;Password=YOUR-STAGING-PASSWORD',
    encryptDataInTransit: 'true',
    replicateCompatibilityLevel: 'true',
  },
  warehouse: {
    accessType: 'AccessKey',
    accessKey: 'YOUR-AWS-ACCESS-KEY-ID',
    secretKey: 'YOUR-AWS-SECRET-ACCESS-KEY',
    bucketName: 'replication-bucket',
    bucketFolderName: '/replications/sales',
    regionEndpoint: 'us-east-1',
    retentionDays: '7',
    url: 'examplecluster.abc123xyz789.us-east-1.redshift.amazonaws.com:5439',
    databaseSchema: 'public',
    databaseName: 'dev',
    username: 'awsuser',
    password: 'YOUR-WAREHOUSE-PASSWORD',
    scdType: 'Type1',
  },
  addUpdateTimestamp: 'true',
  tablesToInclude: '[dbo].[Orders], [dbo].[AuditLog]',
  reseedingSchedule: {
    noPkTablesToInclude: '[dbo].[AuditLog]',
    pkTablesToInclude: 'All',
    fromTime: '02:00:00 AM',
    toTime: '04:00:00 AM',
    repeatIntervalInMinutes: '1440',
  },
};

/** Purpose, specific errors and an example request of every operation; the compiler holds the list complete. */
export const OPERATION_DOCS: Record<OperationName, OperationDoc> = {
  CreateWarehouseReplication: {
    purpose:
      'Creates a replication: checks that the source, the staging database, the warehouse and the bucket answer with the credentials given, then stores the job and starts it.',
    errors: [
      '400 when a database or the bucket cannot be reached or refuses the credentials, or a listed table does not exist or would collide with another in the warehouse (named by field)',
    ],
    example: createExample,
  },
  AlterWarehouseReplication: {
    purpose:
      'Changes settings of a replication; a field left out keeps its value. The result is checked as a whole: e.g. a changed Warehouse Url needs the Password again, IsContinuous false needs RepeatIntervalInMinutes.',
    errors: [
      NOT_FOUND_REPLICATION,
      BEING_DELETED,
      CHANGED_CONCURRENTLY,
      '400 `{Warehouse\\Password}: is required when {Warehouse\\Url} changes …`: a change of Url, DatabaseName or Username needs the Password again, a change of BucketName, RegionEndpoint or AccessKey the SecretKey, and so does a change of Url, DatabaseName or Username when the warehouse (after the change) is Redshift, whose COPY carries the S3 key pair to the cluster; all in the same call (a stored secret only goes where it was given for)',
      '400 when a changed connection, bucket or table list does not check out, as for a Create (named by field)',
    ],
    absent: 'unchanged',
    example: {
      replicationId: REPLICATION_ID,
      replicationName: 'Sales to warehouse',
      isContinuous: 'false',
      repeatIntervalInMinutes: '15',
      scheduleIntervalTimeFrom: '01:00:00 AM',
      scheduleIntervalTimeTo: '05:00:00 AM',
      warehouse: { timeoutInMins: '90' },
    },
  },
  DescribeWarehouseReplication: {
    purpose: 'Shows a replication: its configuration (secrets masked), status, every table, alerts and last error.',
    errors: [NOT_FOUND_REPLICATION],
    example: { replicationId: REPLICATION_ID },
  },
  ListWarehouseReplications: {
    purpose: "Lists the replications the calling key's scope covers. Takes no fields; an empty body is fine.",
    errors: [],
    example: {},
  },
  DeleteWarehouseReplication: {
    purpose:
      "Stops a replication and removes its triggers and change tables from the source and its state from the service. The warehouse's data stays.",
    errors: [NOT_FOUND_REPLICATION, BEING_DELETED],
    example: { replicationId: REPLICATION_ID },
  },
  StopReplicationService: {
    purpose: 'Stops data movement service-wide until StartReplication. Takes no fields; an empty body is fine.',
    errors: [SERVICE_WIDE],
    example: {},
  },
  StartReplication: {
    purpose:
      'Without a ReplicationId, resumes the whole service; with one, resumes that replication (a Failed one too). A replication is not started while the service is stopped: StartReplication without a ReplicationId first.',
    errors: [NOT_FOUND_REPLICATION, `${SERVICE_WIDE} (without a ReplicationId)`, '400 with ReplicationId while the service is stopped (StopReplicationService), saying so: nothing is changed', BEING_DELETED],
    example: { replicationId: REPLICATION_ID },
  },
  StopReplication: {
    purpose:
      'Stops one replication (DataReplication becomes false) until StartReplication with its ReplicationId; the others go on. Work in flight finishes; nothing is lost.',
    errors: [NOT_FOUND_REPLICATION, BEING_DELETED],
    example: { replicationId: REPLICATION_ID },
  },
  AcknowledgeAlerts: {
    purpose:
      "Acknowledges a replication's active alerts (those named, or every one): they stay in Describe as Acknowledged and leave the svc_alerts gauge. Failure, RetentionDanger and Validation alerts also resolve by themselves when their condition ends.",
    errors: [NOT_FOUND_REPLICATION],
    example: { replicationId: REPLICATION_ID, alertIds: '6f1c2b7a-0d4e-4f8a-9b3c-2e5d7a1f0c9b' },
  },
  AlterConfiguration: {
    purpose: 'Changes service-wide settings.',
    errors: [SERVICE_WIDE],
    absent: 'unchanged',
    example: { serializeReplications: 'false', parallelDatabaseReplicationsLimit: '4' },
  },
  GetReplicationMetrics: {
    purpose: "Each table's history over the last SinceMinutes: one point per step with activity. The service keeps one sample a minute per table for 7 days.",
    errors: [NOT_FOUND_REPLICATION, "404 `{TableName}: table '…' is not part of replication '…'`"],
    example: { replicationId: REPLICATION_ID, tableName: '[dbo].[Orders]', sinceMinutes: '120', stepMinutes: '5' },
  },
  StartReplicationValidation: {
    purpose:
      'Compares the warehouse with the source, table by table, without stopping replication: each engine checksums its rows in SQL, only differing parts are compared key by key, and keys that changed meanwhile are checked again. Answers a ValidationId; DescribeReplicationValidation shows progress and results.',
    errors: [NOT_FOUND_REPLICATION, "400 `{TablesToInclude}: table '…' is not part of replication '…'`", "400 `{ReplicationId}: replication '…' has no tables yet`"],
    example: { replicationId: REPLICATION_ID, tablesToInclude: '[dbo].[Orders], [dbo].[OrderLines]' },
  },
  DescribeReplicationValidation: {
    purpose:
      "Shows a validation's progress and result per table: state, rows compared, how many keys differ and how (missing, extra, different), and the first differing keys (keys only, never other values). The latest validation when ValidationId is absent.",
    errors: [NOT_FOUND_REPLICATION, "404 `{ValidationId}: replication '…' has no validation '…'`", "404 `{ReplicationId}: replication '…' has not been validated yet`"],
    example: { replicationId: REPLICATION_ID, validationId: VALIDATION_ID },
  },
  RepairReplication: {
    purpose:
      'Repairs the tables a validation found Mismatched (or those TablesToInclude names): each is compared again, its differing keys are re-read from the source and applied through the pipeline as an ordinary change cycle (so a repair never races one), and the table is compared once more: Repaired when nothing differs any more. A table whose difference is too large to repair key by key is reseeded, with a Reseed alert saying why. DescribeReplicationValidation shows Repairing, then Repaired or Mismatched.',
    errors: [
      NOT_FOUND_REPLICATION,
      "404 `{ValidationId}: replication '…' has no validation '…'`",
      "400 `{TablesToInclude}: table '…' is not part of validation '…'`",
      "400 `{TablesToInclude}: table '…' is Validated: only a Mismatched table is repaired`",
      "400 `{ValidationId}: validation '…' found no Mismatched table to repair`",
    ],
    example: { replicationId: REPLICATION_ID, validationId: VALIDATION_ID, tablesToInclude: '[dbo].[Orders]' },
  },
  CreateAccessKey: {
    purpose: "Creates an access key within the calling key's own rights. Its secret is answered this once.",
    errors: [
      '403 when the new key would be allowed more than the calling key (an operation it lacks, or scope All from an Own key)',
      "403 `{ExpiresAt}: this key expires at …, so it cannot give a key a later expiry …`: a key lives no longer than the key that created it (without ExpiresAt it gets the creator's), and stops when its creator is disabled, expires or is deleted",
    ],
    example: {
      allowedOperations: 'DescribeWarehouseReplication, ListWarehouseReplications, GetReplicationMetrics',
      replicationScope: 'Own',
      expiresAt: '2099-12-31T00:00:00Z',
      description: 'read-only dashboard',
    },
  },
  ListAccessKeys: {
    purpose: 'Lists the keys the calling key may manage, never a secret. Takes no fields; an empty body is fine.',
    errors: [],
    example: {},
  },
  UpdateAccessKey: {
    purpose: "Enables or disables a key, or changes when it expires.",
    errors: [
      NOT_FOUND_KEY,
      "400 `{AccessKeyId}: key '…' is the last enabled key with ReplicationScope All …` (or `… and the keys it created are the last …`: they stop with it)",
      '403 `{ExpiresAt}: a key may only shorten its own lifetime …`, and no key gives another an expiry later than its own (nor Never)',
      "403 `{Status}: key '…' was disabled by a key with ReplicationScope All …`: only a key at least as wide as the one that disabled a key enables it again",
    ],
    absent: 'unchanged',
    example: { accessKeyId: KEY_ID, status: 'Disabled' },
  },
  DeleteAccessKey: {
    purpose: 'Deletes a key, and the keys it created down the chain: they stop signing at once.',
    errors: [NOT_FOUND_KEY, "400 `{AccessKeyId}: key '…' is the last enabled key with ReplicationScope All …`"],
    example: { accessKeyId: KEY_ID },
  },
  RotateAccessKey: {
    purpose: 'Gives a key a new secret, answered this once; the replaced secret keeps signing for OverlapMinutes.',
    errors: [NOT_FOUND_KEY],
    example: { accessKeyId: KEY_ID, overlapMinutes: '30' },
  },
  PutAlertTarget: {
    purpose:
      'Creates or replaces (by Name) a place every alert is delivered to: a signed HTTPS webhook, an Amazon SNS topic or e-mail over SMTP, optionally only for some AlertKinds and ReplicationIds. Secrets are kept sealed and never answered; a secret left out of a replacement is kept. Deliveries that gave up in the last 24 hours are tried again. docs/ALERTS.md describes what a target receives.',
    errors: [
      SERVICE_WIDE,
      '400 `{SigningSecret}: is required when Type is Webhook` for a new webhook target (or one that was of another Type)',
      '400 `{TopicArn}: must not be given when Type is Webhook` (and likewise for every field of another Type)',
      '400 `{Url}: names a loopback address …` (loopback only with ALLOW_LOOPBACK_TARGETS; metadata and link-local addresses never); `{Url}: must be https …` unless it is a loopback receiver',
      '400 `{ReplicationIds}: replication \'…\' does not exist`',
    ],
    example: { name: 'ops-webhook', type: 'Webhook', url: 'https://hooks.example.com/svc-alerts', signingSecret: 'YOUR-WEBHOOK-SIGNING-SECRET', alertKinds: 'Failure, Reseed, Validation' },
  },
  ListAlertTargets: {
    purpose: 'Lists the alert targets, never a secret (a webhook by its scheme and host), with how their deliveries went. Takes no fields.',
    errors: [SERVICE_WIDE],
    example: {},
  },
  DeleteAlertTarget: {
    purpose: 'Deletes an alert target and the deliveries still waiting for it.',
    errors: [SERVICE_WIDE, "404 `{Name}: alert target '…' does not exist`"],
    example: { name: 'ops-webhook' },
  },
};
