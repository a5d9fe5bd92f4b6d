import type { ReplicationConfig } from '../replication/replication-config';
import type { BatchDescriptor, StagedFiles } from './batch';
import type { TableDefinition, TableRef } from './table';

/** Registry → extractor (JetStream work queue): read one batch of one table. */
export interface ExtractRequested {
  /** Unique per scheduled unit of work; later stages dedupe on it (JetStream Nats-Msg-Id). */
  workId: string;
  replicationId: string;
  table: TableRef;
  kind: 'seed' | 'changes';
  /** Seed: install change tracking first (a keyed table in TablesToInclude); false for tables only reseeded. */
  track: boolean;
  /** For `changes`: the table's watermark. */
  fromVersion?: string;
  /** ChangeTrackingBatchLimit */
  batchLimit: number;
  /** The replication's configuration version when the work was issued: workers use no older one (a rotated password). */
  configVersion?: number;
  /**
   * Per-table fencing token from the registry; every unit of work claimed for a table has a higher epoch
   * than all before it. Staging and warehouse refuse a batch whose epoch is below one they have applied.
   */
  epoch: number;
  requestedAt: string;
}

/** Extractor → stager: a batch's rows are in the rows stream under `rowsSubject`, `chunkCount` messages. */
export interface BatchExtracted {
  workId: string;
  batch: BatchDescriptor;
  rowsSubject: string;
  chunkCount: number;
  rowCount: number;
  /** When the extractor started reading (for lag). */
  extractedAt: string;
}

/** Stager → loader: the batch is applied to staging and its files are in the bucket. */
export interface BatchStaged {
  workId: string;
  batch: BatchDescriptor;
  files: StagedFiles;
  rowCount: number;
  /** Columns added to the staging table by this batch (schema evolution). */
  addedColumns: string[];
  extractedAt: string;
}

/** Loader (or extractor, for an empty change batch) → registry: the batch is in the warehouse. */
export interface BatchLoaded {
  workId: string;
  batchId: string;
  replicationId: string;
  table: TableRef;
  kind: 'seed' | 'changes';
  /** Seed: the part loaded and whether it was the last. */
  part?: number;
  final?: boolean;
  /** Seed: the snapshot's start version; changes: the new watermark. */
  version: string;
  rowCount: number;
  addedColumns: string[];
  /** Added columns whose existing source rows got a value (hasDefault): downstream they are NULL until a reseed. */
  filledColumns?: string[];
  extractedAt: string;
  loadedAt: string;
}

/** Any worker → registry: a unit of work failed for good (terminal) or after its retries. */
export interface WorkFailed {
  workId: string;
  replicationId: string;
  table: TableRef;
  stage: 'extract' | 'stage' | 'load';
  retryable: boolean;
  /** Never contains a secret. */
  message: string;
  /** The table must be reseeded (e.g. its watermark is below the minimum valid version). */
  reseed?: boolean;
  /**
   * What the failure concerns: its table (the default when absent), or the whole replication (its
   * database or bucket cannot be used: credentials, a missing database or bucket).
   */
  scope?: 'table' | 'replication';
  /** The configuration version the work was issued under (a replication-wide failure under an older one is retried). */
  configVersion?: number;
  failedAt: string;
}

/**
 * Worker → registry (core NATS, best effort): a worker is handling a stage of this unit of work, sent when
 * it starts and then every few seconds. The registry keeps the last one as the table's last progress
 * (Describe, /metrics) and as the sign of life that lets the work hold a serialized replication's slot.
 */
export interface WorkProgress {
  workId: string;
  replicationId: string;
  table: TableRef;
  stage: 'extract' | 'stage' | 'load';
  at: string;
}

/**
 * Registry → workers (core NATS, best effort): a unit of work was cancelled (it ran past its timeout) and
 * released; its messages are dropped where they are seen. The fence (`epoch`) is what keeps a cancelled
 * unit's batches out of staging and warehouse; this only saves the work.
 */
export interface WorkCancelled {
  workId: string;
  replicationId: string;
  table: TableRef;
  reason: string;
  cancelledAt: string;
}

/** Worker → registry (request/reply): the configuration a worker needs, secrets included (internal only). */
export interface RuntimeConfigRequest {
  replicationId: string;
}

export interface RuntimeConfigReply {
  replicationId: string;
  configVersion: number;
  config: ReplicationConfig;
}

/** Registry → extractor (request/reply): the tables of a replication's source. */
export interface DiscoverTablesRequest {
  replicationId: string;
}

export interface DiscoverTablesReply {
  tables: TableDefinition[];
}

/**
 * Registry → extractor (request/reply): remove change tracking of these tables from the replication's
 * source (no replication tracks them any more). Releasing a table not tracked, or gone, is no error.
 */
export interface ReleaseTablesRequest {
  replicationId: string;
  tables: TableRef[];
}

export interface ReleaseTablesReply {
  /** `tableKey()` of every table released, in request order. */
  released: string[];
}
