import type { AlertDeliveryState, AlertTargetType } from './alert-target-operations';
import type { AlertRecord, ReplicationStatus, TablePhase } from './replication-status';

/** One table's numbers for monitoring (the gateway's /metrics). */
export interface TableMetrics {
  /** `[schema].[table]` */
  name: string;
  phase: TablePhase;
  rowsSeeded: number;
  /** Seconds from extraction to the warehouse of the last loaded cycle; null before the first. */
  lagSeconds: number | null;
  /** When the table's last unit of work ended; null before the first. */
  lastCycleAt: string | null;
  /** True while the table has an error on record (its last unit failed). */
  failing: boolean;
  /** Seconds the table's work has been in flight; null while it has none. */
  inFlightSeconds: number | null;
  /** Last sign of progress of the table's work (heartbeat, part or batch loaded, claim); null before any. */
  lastProgressAt: string | null;
  /** The table's last finished validation (Validated, Mismatched or Repaired); null before any. */
  lastValidation: { state: string; mismatchedKeys: number; endedAt: string } | null;
}

export interface ReplicationMetrics {
  replicationId: string;
  replicationName: string;
  status: ReplicationStatus;
  tables: TableMetrics[];
  /** Bytes of WAL the source keeps for the replication's slot (PostgreSQL log capture); null when unknown or none. */
  sourceWalHeldBytes?: number | null;
}

/** Registry → gateway: every replication's state, and its active alerts (neither acknowledged nor resolved) by kind. */
export interface RegistryMetricsReply {
  replications: ReplicationMetrics[];
  activeAlerts: { replicationId: string; kind: AlertRecord['kind']; count: number }[];
  /** Alert deliveries per target and state (absent from a registry older than alert targets). */
  alertDeliveries?: { target: string; type: AlertTargetType; state: AlertDeliveryState; count: number }[];
}
