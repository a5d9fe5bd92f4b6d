import type { AlterReplicationRequest, CreateReplicationRequest, ReplicationConfig } from './replication-config';
import type { AlertRecord, ReplicationStatus, TableStatus } from './replication-status';

/** Every API operation (DESIGN §4), the path segment after /api/. */
export const OPERATIONS = [
  'CreateWarehouseReplication',
  'AlterWarehouseReplication',
  'DescribeWarehouseReplication',
  'ListWarehouseReplications',
  'DeleteWarehouseReplication',
  'StopReplicationService',
  'StartReplication',
  'AlterConfiguration',
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

export interface AlterConfigurationRequest {
  serializeReplications?: boolean;
  parallelDatabaseReplicationsLimit?: number;
}

export type EmptyRequest = Record<string, never>;

export interface CreateReplicationResponse {
  replicationId: string;
  status: ReplicationStatus;
  note: string;
}

export interface ReplicationSummary {
  replicationId: string;
  replicationName: string;
  status: ReplicationStatus;
}

export interface ReplicationDescription extends ReplicationSummary {
  createdAt: string;
  updatedAt: string;
  /** Stored configuration with every secret replaced by SECRET_MASK. */
  configuration: ReplicationConfig;
  tables: TableStatus[];
  lastError: string | null;
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
  AlterConfiguration: { request: AlterConfigurationRequest; response: null };
}

export type OperationRequest<Op extends OperationName> = OperationTypes[Op]['request'];
export type OperationResponse<Op extends OperationName> = OperationTypes[Op]['response'];
