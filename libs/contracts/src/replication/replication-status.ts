export const REPLICATION_STATUSES = ['Running', 'Stopped', 'Failed', 'Deleting'] as const;
export type ReplicationStatus = (typeof REPLICATION_STATUSES)[number];

export const TABLE_PHASES = ['Pending', 'Seeding', 'Tracking', 'Reseeding', 'Untracked', 'Error'] as const;
export type TablePhase = (typeof TABLE_PHASES)[number];

export interface TableStatus {
  /** `[schema].[table]` */
  name: string;
  phase: TablePhase;
  rowsSeeded: number;
  rowsEstimated: number;
  lastVersion: string | null;
  lagSeconds: number | null;
  lastError: string | null;
}

export interface AlertRecord {
  alertId: string;
  replicationId: string;
  kind: 'SchemaChange' | 'Reseed' | 'Failure' | 'RetentionDanger';
  message: string;
  createdAt: string;
}
