import type { AlertDelivery } from './alert-target-operations';
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
  /** While a chunked seed is under way: its chunks loaded of all (the seed's close follows once all are). */
  seedChunksLoaded?: number | null;
  seedChunks?: number | null;
  lastVersion: string | null;
  lagSeconds: number | null;
  /** Why the table's last work failed, as a classified reason (FailureClass's texts) or the service's own words. */
  lastError: string | null;
  /** What the server said of that failure, redacted of credentials: only for keys allowed ERROR_DETAILS_PERMISSION. */
  lastErrorDetail?: string | null;
  /** When the table's last unit of work ended (loaded, failed or cancelled). */
  lastCycleAt?: string | null;
  /** Set while the table waits out the backoff after a failure: when it is tried again. */
  nextAttemptAt?: string | null;
  /** CtProcessTimeoutInMinutes in force for the table's next change cycle (doubled after cancels); null: no limit. */
  ctTimeoutInMinutes?: number | null;
  /** When the table's work in flight was claimed (its seed or change cycle began); null while it has none. */
  workStartedAt?: string | null;
  /** Seconds the table's work has been in flight; null while it has none. */
  inFlightSeconds?: number | null;
  /**
   * The last sign of progress of the table's work: a worker's heartbeat (every 10 s while a worker handles
   * it), a seed part or change batch loaded, or the claim itself. Far behind `now` with work in flight: a stall.
   */
  lastProgressAt?: string | null;
  /** The table's last finished comparison with its source (Validated, Mismatched or Repaired); absent before any. */
  lastValidation?: TableLastValidation;
}

/** A table's last finished validation, as Describe shows it (DescribeReplicationValidation has the rest). */
export interface TableLastValidation {
  validationId: string;
  state: string;
  mismatchedKeys: number;
  endedAt: string;
}

export interface AlertRecord {
  alertId: string;
  replicationId: string;
  kind: 'SchemaChange' | 'Reseed' | 'Failure' | 'RetentionDanger' | 'Validation' | 'TableAdded';
  message: string;
  createdAt: string;
  /** The table it is about (`[schema].[table]`); absent for one about the whole replication. */
  tableName?: string;
  /**
   * Active until acknowledged (AcknowledgeAlerts) or resolved: a Failure, RetentionDanger or Validation alert resolves
   * itself when its condition ends (the table's work succeeds again, a later validation finds it equal).
   */
  state: AlertState;
  acknowledgedAt?: string;
  /** The access key that acknowledged it. */
  acknowledgedBy?: string;
  resolvedAt?: string;
  /** Why it resolved. */
  resolution?: string;
  /** Its delivery to each alert target it was meant for (ListAlertTargets); absent when none was. */
  deliveries?: AlertDelivery[];
}

export const ALERT_STATES = ['Active', 'Acknowledged', 'Resolved'] as const;
export type AlertState = (typeof ALERT_STATES)[number];
