/**
 * The canonical replication model. Field names are the seed's names with a lower-case first letter;
 * XML (PascalCase) and JSON (lower camel) both decode into these shapes.
 */

export const ACCESS_TYPES = ['AccessKey', 'IAMRole'] as const;
export type AccessType = (typeof ACCESS_TYPES)[number];

export const SCD_TYPES = ['Type1', 'Type2'] as const;
export type ScdType = (typeof SCD_TYPES)[number];

/** Retention periods of seed §2.1 in their canonical spelling; input is matched case-insensitively. */
export const RETENTION_PERIODS = [
  '12 Hours',
  '1 Day',
  '2 Days',
  '3 Days',
  '4 Days',
  '5 Days',
  '6 Days',
  '7 Days',
  '8 Days',
] as const;
export type RetentionPeriod = (typeof RETENTION_PERIODS)[number];

/** `All`, or table names each written `[schema].[table]`. */
export type TableSelection = 'All' | string[];

export interface SourceConfig {
  connectionString: string;
  encryptDataInTransit: boolean;
  changeTrackingRetentionPeriod: RetentionPeriod;
  /** JSON only (seed §2.1): true re-initialises change tracking and reseeds. */
  resetChangeTracking?: boolean;
}

export interface StagingConfig {
  connectionString: string;
  encryptDataInTransit: boolean;
  replicateCompatibilityLevel: boolean;
}

export interface WarehouseConfig {
  accessType: AccessType;
  accessKey?: string;
  secretKey?: string;
  accountId?: string;
  roleName?: string;
  /**
   * IAMRole only: the ExternalId the service passes to sts:AssumeRole. Issued by the service (never taken from a
   * request), stored with the replication and shown by Create and Describe; not a secret.
   */
  externalId?: string;
  bucketName: string;
  bucketFolderName: string;
  regionEndpoint: string;
  retentionDays: number;
  url: string;
  databaseSchema: string;
  databaseName: string;
  username: string;
  password: string;
  scdType: ScdType;
}

export interface ReseedingSchedule {
  noPkTablesToInclude: TableSelection;
  pkTablesToInclude: TableSelection;
  /** `hh:mm:ss AM` (12-hour clock), normalised to two-digit fields and upper-case AM/PM. */
  fromTime: string;
  toTime: string;
  repeatIntervalInMinutes: number;
}

/**
 * When the registry validates the replication by itself (StartReplicationValidation of every table): every
 * `repeatIntervalInMinutes` within the daily window `fromTime`–`toTime` (12-hour clock, like ReseedingSchedule).
 * An interval of 0 turns it off. Not in the seed: validation is issue 24's addition.
 */
export interface ValidationSchedule {
  fromTime: string;
  toTime: string;
  repeatIntervalInMinutes: number;
}

/** Body of CreateWarehouseReplication (seed §2.1), after decoding and validation. */
export interface CreateReplicationRequest {
  parallelTablesLimit: number;
  rebuildIndexes: boolean;
  source: SourceConfig;
  staging: StagingConfig;
  warehouse: WarehouseConfig;
  addUpdateTimestamp: boolean;
  tablesToInclude: TableSelection;
  reseedingSchedule?: ReseedingSchedule;
  validationSchedule?: ValidationSchedule;
}

/** Body of AlterWarehouseReplication (seed §2.2): every field but replicationId is optional. */
export interface AlterReplicationRequest {
  replicationId: string;
  replicationName?: string;
  sourceConnectionString?: string;
  /** The destination (replica) database of seed §2.2 is the staging database. */
  destinationConnectionString?: string;
  dataReplication?: boolean;
  schemaReplication?: boolean;
  parallelTablesLimit?: number;
  changeTrackingBatchLimit?: number;
  ctProcessTimeoutInMinutes?: number;
  serializedCtProcessTimeoutInMinutes?: number;
  autoSerializedCtProcessTimeoutInMinutes?: number;
  isContinuous?: boolean;
  repeatIntervalInMinutes?: number;
  scheduleIntervalTimeFrom?: string;
  scheduleIntervalTimeTo?: string;
  isLogErrorsOnly?: boolean;
  alertOnSuccessfulTableSchemaChanges?: boolean;
  tablesToInclude?: TableSelection;
  warehouse?: Partial<WarehouseConfig> & { timeoutInMins?: number };
  reseedingSchedule?: Partial<ReseedingSchedule>;
  validationSchedule?: Partial<ValidationSchedule>;
}

/** Everything stored for a replication: the Create fields plus the Alter-only settings with their defaults. */
export interface ReplicationConfig {
  replicationName: string;
  parallelTablesLimit: number;
  rebuildIndexes: boolean;
  source: SourceConfig;
  staging: StagingConfig;
  warehouse: WarehouseConfig & { timeoutInMins: number };
  addUpdateTimestamp: boolean;
  tablesToInclude: TableSelection;
  reseedingSchedule?: ReseedingSchedule;
  validationSchedule?: ValidationSchedule;
  dataReplication: boolean;
  schemaReplication: boolean;
  changeTrackingBatchLimit: number;
  ctProcessTimeoutInMinutes: number;
  serializedCtProcessTimeoutInMinutes: number;
  autoSerializedCtProcessTimeoutInMinutes: number;
  isContinuous: boolean;
  repeatIntervalInMinutes?: number;
  scheduleIntervalTimeFrom?: string;
  scheduleIntervalTimeTo?: string;
  isLogErrorsOnly: boolean;
  alertOnSuccessfulTableSchemaChanges: boolean;
}

/** Defaults of seed §2.2 / §8 for settings a Create cannot carry. */
export const REPLICATION_DEFAULTS = {
  dataReplication: true,
  schemaReplication: true,
  changeTrackingBatchLimit: 500000,
  ctProcessTimeoutInMinutes: 30,
  serializedCtProcessTimeoutInMinutes: 30,
  autoSerializedCtProcessTimeoutInMinutes: 30,
  isContinuous: true,
  isLogErrorsOnly: true,
  alertOnSuccessfulTableSchemaChanges: false,
  warehouseTimeoutInMins: 60,
} as const;

/**
 * Request fields (lower camel names, in any group) that carry a secret: no message quotes their text, nor the
 * names of anything a caller nests inside them.
 */
export const SECRET_FIELD_NAMES: ReadonlySet<string> = new Set([
  'connectionString',
  'sourceConnectionString',
  'destinationConnectionString',
  'password',
  'secretKey',
  'accessKey',
  'url',
]);

/** What Describe shows in place of a secret. */
export const SECRET_MASK = '********';
