import type { AlterReplicationRequest, CreateReplicationRequest, ReplicationConfig } from './replication-config';
import type { AlertRecord, ReplicationStatus, TableStatus } from './replication-status';
import {
  ALERT_TARGET_OPERATIONS,
  type AlertTargetNameRequest,
  type ListAlertTargetsResponse,
  type PutAlertTargetRequest,
} from './alert-target-operations';
import {
  ACCESS_KEY_OPERATIONS,
  type AccessKeyIdRequest,
  type CreateAccessKeyOperationRequest,
  type CreateAccessKeyOperationResponse,
  type ListAccessKeysResponse,
  type RotateAccessKeyRequest,
  type RotateAccessKeyResponse,
  type UpdateAccessKeyRequest,
} from './access-key-operations';
import type {
  DescribeValidationRequest,
  RepairValidationRequest,
  RepairValidationResponse,
  StartValidationRequest,
  StartValidationResponse,
  ValidationDescription,
} from './validation';

/** Every API operation (DESIGN §4), the path segment after /api/. */
export const OPERATIONS = [
  'CreateWarehouseReplication',
  'AlterWarehouseReplication',
  'DescribeWarehouseReplication',
  'ListWarehouseReplications',
  'DeleteWarehouseReplication',
  'StopReplicationService',
  'StartReplication',
  'StopReplication',
  'AcknowledgeAlerts',
  'AlterConfiguration',
  'GetReplicationMetrics',
  'StartReplicationValidation',
  'DescribeReplicationValidation',
  'RepairReplication',
  ...ACCESS_KEY_OPERATIONS,
  ...ALERT_TARGET_OPERATIONS,
] as const;
export type OperationName = (typeof OPERATIONS)[number];

export function isOperationName(value: string): value is OperationName {
  return (OPERATIONS as readonly string[]).includes(value);
}

export interface ReplicationIdRequest {
  replicationId: string;
}

export interface StartReplicationRequest {
  replicationId?: string;
}

/** Acknowledges a replication's active alerts: those named, or every one. */
export interface AcknowledgeAlertsRequest {
  replicationId: string;
  alertIds?: string[];
}

export interface AcknowledgeAlertsResponse {
  /** How many active alerts this call acknowledged (named ones already acknowledged or resolved are not counted). */
  acknowledged: number;
}

export interface AlterConfigurationRequest {
  serializeReplications?: boolean;
  parallelDatabaseReplicationsLimit?: number;
}

export type EmptyRequest = Record<string, never>;

/** How far back the metrics history goes (7 days of one-minute samples), and the most points a series answers with. */
export const METRICS_HISTORY_MINUTES = 7 * 24 * 60;
export const METRICS_MAX_POINTS = 1440;
/** SinceMinutes when a request leaves it out. */
export const METRICS_DEFAULT_SINCE_MINUTES = 60;

export interface ReplicationMetricsRequest {
  replicationId: string;
  /** One table (`[schema].[table]`); every table when absent. */
  tableName?: string;
  /** Minutes of history, up to METRICS_HISTORY_MINUTES; 60 when absent. */
  sinceMinutes?: number;
  /** Minutes per point; the smallest that keeps a series within METRICS_MAX_POINTS when absent. */
  stepMinutes?: number;
}

/** One point of a table's history: what its change cycles and seed parts did in `[at, at + stepMinutes)`. */
export interface MetricsPoint {
  at: string;
  /** Change cycles that completed. */
  cycles: number;
  /** Rows applied to the warehouse (change rows and seed rows). */
  rowsApplied: number;
  /** Lag of the last cycle in the interval, and the highest; null without a cycle. */
  lagSeconds: number | null;
  maxLagSeconds: number | null;
  /** Mean and longest cycle duration; null without a cycle. */
  avgCycleMs: number | null;
  maxCycleMs: number | null;
}

export interface TableMetricsHistory {
  name: string;
  points: MetricsPoint[];
}

export interface ReplicationMetricsResponse {
  replicationId: string;
  sinceMinutes: number;
  stepMinutes: number;
  /** Every table with at least one point, by name. */
  tables: TableMetricsHistory[];
}

export interface CreateReplicationResponse {
  replicationId: string;
  status: ReplicationStatus;
  note: string;
  /** An extension of seed §4.1 for IAMRole: the ExternalId the role's trust policy must require. */
  warehouse?: { externalId: string };
}

export interface ReplicationSummary {
  replicationId: string;
  replicationName: string;
  status: ReplicationStatus;
  /** The tables it moves, and how many of them are in Error (their work stopped until the cause is fixed). */
  tableCount: number;
  tablesInError: number;
  /** What the status alone would hide (tables in Error under Running); absent when nothing is. See statusDetailOf. */
  statusDetail?: string;
  /** Why a replication moves no data, and what resumes it (the service stopped, DataReplication off, a failure); absent while it runs. */
  stoppedReason?: string;
}

/**
 * What a Running (or Stopped) replication's status leaves out: that some or all of its tables are in Error. A
 * replication whose every table is in Error moves nothing, whatever its status says.
 */
export function statusDetailOf(tableCount: number, tablesInError: number): string | undefined {
  if (tablesInError === 0) return undefined;
  if (tablesInError === tableCount) return `every table (${tableCount}) is in Error: nothing is replicated until the causes (each table's LastError) are fixed`;
  return `${tablesInError} of ${tableCount} tables are in Error (each table's LastError says why); the others are replicated`;
}

export interface ReplicationDescription extends ReplicationSummary {
  createdAt: string;
  updatedAt: string;
  /** Stored configuration with every secret replaced by SECRET_MASK. */
  configuration: ReplicationConfig;
  tables: TableStatus[];
  lastError: string | null;
  /** What the server said of the last error, redacted of credentials: only for keys allowed ERROR_DETAILS_PERMISSION. */
  lastErrorDetail?: string | null;
  alerts: AlertRecord[];
}

export interface ListReplicationsResponse {
  replications: ReplicationSummary[];
}

export interface ServiceConfiguration {
  serviceStopped: boolean;
  serializeReplications: boolean;
  parallelDatabaseReplicationsLimit: number;
}

/** Request and response payload of each operation; an empty response renders as an empty 200. */
export interface OperationTypes {
  CreateWarehouseReplication: { request: CreateReplicationRequest; response: CreateReplicationResponse };
  AlterWarehouseReplication: { request: AlterReplicationRequest; response: null };
  DescribeWarehouseReplication: { request: ReplicationIdRequest; response: ReplicationDescription };
  ListWarehouseReplications: { request: EmptyRequest; response: ListReplicationsResponse };
  DeleteWarehouseReplication: { request: ReplicationIdRequest; response: null };
  StopReplicationService: { request: EmptyRequest; response: null };
  StartReplication: { request: StartReplicationRequest; response: null };
  StopReplication: { request: ReplicationIdRequest; response: null };
  AcknowledgeAlerts: { request: AcknowledgeAlertsRequest; response: AcknowledgeAlertsResponse };
  AlterConfiguration: { request: AlterConfigurationRequest; response: null };
  GetReplicationMetrics: { request: ReplicationMetricsRequest; response: ReplicationMetricsResponse };
  StartReplicationValidation: { request: StartValidationRequest; response: StartValidationResponse };
  DescribeReplicationValidation: { request: DescribeValidationRequest; response: ValidationDescription };
  RepairReplication: { request: RepairValidationRequest; response: RepairValidationResponse };
  CreateAccessKey: { request: CreateAccessKeyOperationRequest; response: CreateAccessKeyOperationResponse };
  ListAccessKeys: { request: EmptyRequest; response: ListAccessKeysResponse };
  UpdateAccessKey: { request: UpdateAccessKeyRequest; response: null };
  DeleteAccessKey: { request: AccessKeyIdRequest; response: null };
  RotateAccessKey: { request: RotateAccessKeyRequest; response: RotateAccessKeyResponse };
  PutAlertTarget: { request: PutAlertTargetRequest; response: null };
  ListAlertTargets: { request: EmptyRequest; response: ListAlertTargetsResponse };
  DeleteAlertTarget: { request: AlertTargetNameRequest; response: null };
}

export type OperationRequest<Op extends OperationName> = OperationTypes[Op]['request'];
export type OperationResponse<Op extends OperationName> = OperationTypes[Op]['response'];
