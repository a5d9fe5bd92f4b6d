/*
 * The API's answers as the console reads them. The browser build cannot reach libs/contracts (its program would
 * emit the contracts' runtime code too), so the shapes are restated here; wire-types.spec.ts checks at type-check
 * time that they stay assignable to and from @svc/contracts' own.
 */

/**
 * A response as JSON carries it: the gateway's JSON encoder leaves null fields out, so a field that may be null
 * arrives absent instead (libs/api-codec encode.ts).
 */
export type Wire<T> = T extends readonly (infer Item)[]
  ? Wire<Item>[]
  : T extends object
    ? { [K in keyof T as null extends T[K] ? never : K]: Wire<T[K]> } & { [K in keyof T as null extends T[K] ? K : never]?: Wire<Exclude<T[K], null>> }
    : T;

export interface TableStatus {
  /** `[schema].[table]` */
  name: string;
  phase: string;
  rowsSeeded: number;
  rowsEstimated: number;
  lastVersion: string | null;
  lagSeconds: number | null;
  lastError: string | null;
  /** What the server said of the last error: only for keys allowed DescribeReplicationErrorDetails. */
  lastErrorDetail?: string | null;
  lastCycleAt?: string | null;
  nextAttemptAt?: string | null;
  ctTimeoutInMinutes?: number | null;
  workStartedAt?: string | null;
  inFlightSeconds?: number | null;
  lastProgressAt?: string | null;
}

export interface AlertRecord {
  alertId: string;
  replicationId: string;
  kind: string;
  message: string;
  createdAt: string;
}

/** The stored configuration: the console lists whatever fields it has (secrets masked), and reads DataReplication. */
export interface ReplicationConfig {
  replicationName: string;
  dataReplication: boolean;
  [field: string]: unknown;
}

export interface ReplicationSummary {
  replicationId: string;
  replicationName: string;
  status: string;
}

export interface ReplicationDescription extends ReplicationSummary {
  createdAt: string;
  updatedAt: string;
  configuration: ReplicationConfig;
  tables: TableStatus[];
  lastError: string | null;
  lastErrorDetail?: string | null;
  alerts: AlertRecord[];
}

export type DescribedReplication = Wire<ReplicationDescription>;
export type ReplicationList = { replications: ReplicationSummary[] };
export type DescribedTable = Wire<TableStatus>;
export type Alert = Wire<AlertRecord>;

/*
 * GetReplicationMetrics (issue 12): the registry's per-table history. Mirrors the contract being added to
 * libs/contracts (ReplicationMetricsRequest / ReplicationMetricsResponse); until it is there the console codes
 * against this copy and treats any failure of the call as "no history".
 */
export interface MetricsRequest {
  replicationId: string;
  tableName?: string;
  /** Minutes of history, at most 10080 (7 days); 60 when absent. */
  sinceMinutes?: number;
  stepMinutes?: number;
}

export interface MetricsPoint {
  /** ISO time at which the point's interval starts. */
  at: string;
  cycles: number;
  rowsApplied: number;
  lagSeconds?: number;
  maxLagSeconds?: number;
  avgCycleMs?: number;
  maxCycleMs?: number;
}

export interface MetricsHistory {
  replicationId: string;
  sinceMinutes: number;
  stepMinutes: number;
  tables: { name: string; points: MetricsPoint[] }[];
}
