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
  failedAt: string;
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
