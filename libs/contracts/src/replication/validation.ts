/** What a table's validation found, or where it stands (StartReplicationValidation, DescribeReplicationValidation). */
export const VALIDATION_STATES = ['Pending', 'Running', 'Validated', 'Mismatched', 'Repairing', 'Repaired', 'Failed', 'Skipped'] as const;
export type ValidationState = (typeof VALIDATION_STATES)[number];

/** States a table's validation does not leave by itself. */
export const FINAL_VALIDATION_STATES: readonly ValidationState[] = ['Validated', 'Mismatched', 'Repaired', 'Failed', 'Skipped'];

/**
 * How a key differs: `missing` in the warehouse, `extra` in the warehouse (no such source row, or a second current
 * row of a Type2 key), `different` values.
 */
export const DIFFERENCE_KINDS = ['missing', 'extra', 'different'] as const;
export type DifferenceKind = (typeof DIFFERENCE_KINDS)[number];

/** The most differing keys a table's validation keeps to show; the counts cover every one. */
export const VALIDATION_MAX_KEYS_SHOWN = 20;

/** One differing key: its columns' values in the canonical text validation compares (keys only, never other values). */
export interface DifferingKey {
  key: Record<string, string | null>;
  difference: DifferenceKind;
}

export interface StartValidationRequest {
  replicationId: string;
  /** `[schema].[table]` names, a subset of the replication's tables; every replicated table when absent. */
  tablesToInclude?: string[];
}

export interface StartValidationResponse {
  replicationId: string;
  validationId: string;
}

export interface DescribeValidationRequest {
  replicationId: string;
  /** The replication's latest validation when absent. */
  validationId?: string;
}

export interface TableValidation {
  /** `[schema].[table]` */
  name: string;
  state: ValidationState;
  /** Why the table was Skipped or Failed; null otherwise. */
  reason: string | null;
  /** Rows compared so far (source rows read by the comparison). */
  rowsCompared: number;
  /** The source's estimate of the table's rows; null until the comparison starts. */
  rowsEstimated: number | null;
  /** Keys that still differed after their recheck: missing + extra + different. */
  mismatchedKeys: number;
  missingKeys: number;
  extraKeys: number;
  differentKeys: number;
  /** Keys that changed in the source during every recheck, so could not be compared at rest: not counted as differences. */
  unsettledKeys: number;
  /** The first differing keys (at most VALIDATION_MAX_KEYS_SHOWN), in no particular order. */
  differingKeys: DifferingKey[];
  /** The source version the comparison was pinned to; null before it started. */
  sourceVersion: string | null;
  startedAt: string | null;
  endedAt: string | null;
}

export interface ValidationDescription {
  replicationId: string;
  validationId: string;
  requestedAt: string;
  /** Whether the replication's ValidationSchedule started it, rather than a request. */
  scheduled: boolean;
  tables: TableValidation[];
}

export interface RepairValidationRequest {
  replicationId: string;
  validationId: string;
  /** `[schema].[table]` names of the validation's Mismatched tables; every Mismatched table of it when absent. */
  tablesToInclude?: string[];
}

export interface RepairValidationResponse {
  replicationId: string;
  validationId: string;
  /** The tables whose repair was queued (their state is Pending, then Repairing, then Repaired or Mismatched). */
  tables: string[];
}
