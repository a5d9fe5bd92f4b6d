import { Type, type Static } from '@sinclair/typebox';
import { AnyText, Count, Flag, Matching, OneOf, PositiveCount, Struct, Text, TextList, Timestamp } from '../schema/kinds';
import { PipelineSubjects } from '../subjects';
import { ANY_INSTALLATION_ROWS_SUBJECT } from '../installation';
import { BatchDescriptorSchema, StagedFilesSchema } from './batch';
import { TableRefSchema, type TableDefinition, type TableRef } from './table';

const WORK_KINDS = ['seed', 'changes'] as const;

/** A key bound of a seed chunk: the texts of the key's columns as the source wrote them (an empty text is a value); null: unbounded. */
const KeyBound = () => Type.Union([Type.Array(AnyText(), { minItems: 1, problem: 'must be a non-empty list' }), Type.Null()], { problem: 'must be a list of key texts or null' });

/**
 * One key range of a chunked seed (docs/PIPELINE.md, "Chunked seeds"): the rows whose key is at or above `lower` and
 * below `upper`, read in a snapshot of their own. Every chunk of one seed shares its capture horizon `startVersion`,
 * taken before the first chunk was read: the seed's close applies the changes from there over the chunks.
 */
export const SeedChunkSchema = Struct({
  seedId: Text(),
  index: Count(),
  count: PositiveCount(),
  startVersion: Text(),
  sourceIncarnation: Type.Optional(Text()),
  lower: KeyBound(),
  upper: KeyBound(),
});
export type SeedChunk = Static<typeof SeedChunkSchema>;

/** The close of a chunked seed: the changes from its capture horizon, applied over the chunks before the seed is made the table's. */
export const SeedCloseSchema = Struct({
  seedId: Text(),
  chunkCount: PositiveCount(),
  fromVersion: Text(),
  fromIncarnation: Type.Optional(Text()),
});
export type SeedClose = Static<typeof SeedCloseSchema>;
const WORK_STAGES = ['extract', 'stage', 'load'] as const;

/** Registry → extractor (JetStream work queue): read one batch of one table. */
export const ExtractRequestedSchema = Struct({
  /** Unique per scheduled unit of work; later stages dedupe on it (JetStream Nats-Msg-Id). */
  workId: Text(),
  replicationId: Text(),
  table: TableRefSchema,
  kind: OneOf(WORK_KINDS),
  /** Seed: install change tracking first (a keyed table in TablesToInclude); false for tables only reseeded. */
  track: Flag(),
  /** For `changes` (required there): the table's watermark. */
  fromVersion: Type.Optional(Text()),
  /** For `changes`: the source database's incarnation stored with the watermark; a source that is another one now reseeds. */
  fromIncarnation: Type.Optional(Text()),
  /** ChangeTrackingBatchLimit */
  batchLimit: PositiveCount(),
  /** Seed: one chunk of a chunked seed (published by the registry for the seed's plan); absent for the seed's planning work. */
  chunk: Type.Optional(SeedChunkSchema),
  /** Seed: the close of a chunked seed whose chunks are all loaded. */
  seedClose: Type.Optional(SeedCloseSchema),
  /** The replication's configuration version when the work was issued: workers use no older one (a rotated password). */
  configVersion: Type.Optional(Count()),
  /**
   * Per-table fencing token from the registry; every unit of work claimed for a table has a higher epoch
   * than all before it. Staging and warehouse refuse a batch whose epoch is below one they have applied.
   */
  epoch: Count(),
  requestedAt: Timestamp(),
});
export type ExtractRequested = Static<typeof ExtractRequestedSchema>;

/** Extractor → stager: a batch's rows are in the rows stream under `rowsSubject`, `chunkCount` messages. */
export const BatchExtractedSchema = Struct({
  workId: Text(),
  batch: BatchDescriptorSchema,
  rowsSubject: Matching(ANY_INSTALLATION_ROWS_SUBJECT, `must be a subject under ${PipelineSubjects.rowsPrefix} (or an installation's svc-<name>.pipeline.v1.rows)`),
  chunkCount: Count(),
  rowCount: Count(),
  /** When the extractor started reading (for lag). */
  extractedAt: Timestamp(),
});
export type BatchExtracted = Static<typeof BatchExtractedSchema>;

/**
 * Stager → loader: the batch's files are in the bucket. Without `awaitsStaging` (a stager before it) the batch was also
 * applied to staging; with it, staging is applying it now, and its commit is reported apart (BatchStagingApplied).
 */
export const BatchStagedSchema = Struct({
  workId: Text(),
  batch: BatchDescriptorSchema,
  files: StagedFilesSchema,
  rowCount: Count(),
  /** Staging and the warehouse apply the batch at once: the registry completes it when both have reported. */
  awaitsStaging: Type.Optional(Flag()),
  /** Columns added to the staging table by this batch (schema evolution). */
  addedColumns: TextList(),
  /** Columns staging widened (or kept wider) for this batch's source types, in words for the SchemaChange alert. */
  schemaChanges: Type.Optional(TextList()),
  /** Columns that look renamed in the source (the old one is left stale), in words for the SchemaChange alert. */
  suspectedRenames: Type.Optional(TextList()),
  extractedAt: Timestamp(),
});
export type BatchStaged = Static<typeof BatchStagedSchema>;

/** Members of one group at most (docs/PIPELINE.md, "Many small tables in one unit"); a group's message stays far below NATS's payload limit. */
export const MAX_WORK_GROUP_MEMBERS = 200;

const GroupOf = <T extends Parameters<typeof Type.Array>[0]>(member: T) =>
  Type.Array(member, { minItems: 1, maxItems: MAX_WORK_GROUP_MEMBERS, problem: `must be a list of 1 to ${String(MAX_WORK_GROUP_MEMBERS)} members` });

/**
 * Registry → extractors: the change cycles of several small tables of one replication, carried as one unit. Each member
 * is the work it would be alone — its own claim, epoch, fences, heartbeat and reports — and may leave the group at any
 * stage (its backlog is large, its table must be created, the group's transaction failed) to go on alone.
 */
export const ExtractGroupRequestedSchema = Struct({
  /** The group's own id (its message id): no claim has it, and nothing is cancelled or reported under it. */
  workId: Text(),
  group: GroupOf(ExtractRequestedSchema),
});
export type ExtractGroupRequested = Static<typeof ExtractGroupRequestedSchema>;

/** Extractor → stagers: the members' change batches, applied to staging in one transaction. */
export const BatchGroupExtractedSchema = Struct({
  workId: Text(),
  group: GroupOf(BatchExtractedSchema),
});
export type BatchGroupExtracted = Static<typeof BatchGroupExtractedSchema>;

/** Stager → loaders: the members' change batches, applied to staging and in the bucket, loaded in one warehouse transaction. */
export const BatchGroupStagedSchema = Struct({
  workId: Text(),
  group: GroupOf(BatchStagedSchema),
});
export type BatchGroupStaged = Static<typeof BatchGroupStagedSchema>;

/** What an extractor takes from its subject: one table's work or a group's. */
export type ExtractWork = ExtractRequested | ExtractGroupRequested;
/** What a stager takes: one batch or a group's. */
export type ExtractedWork = BatchExtracted | BatchGroupExtracted;
/** What a loader takes: one batch or a group's. */
export type StagedWork = BatchStaged | BatchGroupStaged;

/** True for a group's message (the subject carries both). */
export function isWorkGroup<M extends { workId: string }>(message: M): message is Extract<M, { group: unknown[] }> {
  return 'group' in message;
}

/** Loader (or extractor, for an empty change batch) → registry: the batch is in the warehouse. */
export const BatchLoadedSchema = Struct({
  workId: Text(),
  batchId: Text(),
  replicationId: Text(),
  table: TableRefSchema,
  kind: OneOf(WORK_KINDS),
  /** Seed: the part loaded (of a chunked seed: the chunk). */
  part: Type.Optional(Count()),
  /** Seed: the chunked seed the part is a chunk of. */
  seedChunkOf: Type.Optional(Text()),
  /** Whether the batch was the last of its work (a seed's final part; changes: absent means the last). */
  final: Type.Optional(Flag()),
  /** Changes: the version the batch starts at (a watermark moves from it to `version` only while it still stands there). */
  fromVersion: Type.Optional(Text()),
  /** Seed: the snapshot's start version; changes: the new watermark. */
  version: Text(),
  /** The source database's incarnation `version` was read in, stored with the watermark; absent when unknown. */
  sourceIncarnation: Type.Optional(Text()),
  rowCount: Count(),
  addedColumns: TextList(),
  /** Columns staging and warehouse widened (or kept wider) for the source's types, in words for the SchemaChange alert. */
  schemaChanges: Type.Optional(TextList()),
  /** Columns that look renamed in the source (the old one is left stale), in words for the SchemaChange alert. */
  suspectedRenames: Type.Optional(TextList()),
  /** Added columns whose existing source rows got a value (hasDefault): downstream they are NULL until a reseed. */
  filledColumns: Type.Optional(TextList()),
  /** The epoch of the attempt that read the batch (BatchDescriptor.epoch): only the work's latest attempt moves its table. */
  epoch: Type.Optional(Count()),
  /** BatchStaged.awaitsStaging: the batch is complete when staging's BatchStagingApplied is in too. */
  awaitsStaging: Type.Optional(Flag()),
  extractedAt: Timestamp(),
  loadedAt: Timestamp(),
});
export type BatchLoaded = Static<typeof BatchLoadedSchema>;

/** Stager → registry: staging committed a batch it handed to the loaders before (BatchStaged.awaitsStaging). */
export const BatchStagingAppliedSchema = Struct({
  workId: Text(),
  batchId: Text(),
  replicationId: Text(),
  table: TableRefSchema,
  epoch: Count(),
  appliedAt: Timestamp(),
});
export type BatchStagingApplied = Static<typeof BatchStagingAppliedSchema>;

/** Any worker → registry: a unit of work failed for good (terminal) or after its retries. */
export const WorkFailedSchema = Struct({
  workId: Text(),
  replicationId: Text(),
  table: TableRefSchema,
  stage: OneOf(WORK_STAGES),
  retryable: Flag(),
  /** The classified reason (failureText) or the service's own words: never a secret, a server's words or a row value. */
  message: AnyText(),
  /** What the driver or server said, redacted of credentials (at most FAILURE_DETAIL_MAX_LENGTH): shown only to keys allowed ERROR_DETAILS_PERMISSION. */
  detail: Type.Optional(AnyText()),
  /** The table must be reseeded (e.g. its watermark is below the minimum valid version). */
  reseed: Type.Optional(Flag()),
  /**
   * The batch was refused by a fence above its epoch. For work the registry has released that is expected and changes
   * nothing; for work it still holds as current, its epochs are behind the databases' (a control database restored
   * from an older backup): the registry moves its epochs past every fence and reseeds the table.
   */
  fencedOut: Type.Optional(Flag()),
  /**
   * What the failure concerns: its table (the default when absent), or the whole replication (its
   * database or bucket cannot be used: credentials, a missing database or bucket).
   */
  scope: Type.Optional(OneOf(['table', 'replication'])),
  /** The configuration version the work was issued under (a replication-wide failure under an older one is retried). */
  configVersion: Type.Optional(Count()),
  /** The epoch of the attempt that failed: a failure of an attempt a later one replaced moves nothing. */
  epoch: Type.Optional(Count()),
  failedAt: Timestamp(),
});
export type WorkFailed = Static<typeof WorkFailedSchema>;

/**
 * Extractor → registry (request/reply): a work request delivered again (its ack deadline passed while an attempt may
 * still be reading, a worker died, or a retry) starts a new attempt, which gets a new, higher epoch. Staging and
 * warehouse refuse batches of lower epochs once one of the new attempt's is applied, and the registry moves the table
 * only on the latest attempt's reports: two attempts of one work read different windows at different times, and the
 * older one's rows applied after the newer one's would bring deleted rows back or take re-inserted ones away.
 */
export const WorkAttemptRequestSchema = Struct({
  workId: Text(),
  replicationId: Text(),
  table: TableRefSchema,
});
export type WorkAttemptRequest = Static<typeof WorkAttemptRequestSchema>;

export interface WorkAttemptReply {
  /** The new attempt's epoch; null when the work is no longer in flight (done, failed, cancelled): nothing to do. */
  epoch: number | null;
}

/**
 * Extractor → registry (request/reply): the plan of a chunked seed. Without `proposal` it asks whether the table has a
 * plan already (a seed resumed after a crash, a restart or a failure: only its chunks not loaded are read again);
 * with one, the extractor offers the plan it made, which the registry keeps unless another was kept first. Either way,
 * once a plan is kept the registry publishes the chunk work of every chunk not loaded yet, under the work's epoch.
 */
export const SeedPlanRequestSchema = Struct({
  workId: Text(),
  epoch: Count(),
  replicationId: Text(),
  table: TableRefSchema,
  /** The table's key columns now: a kept plan over other ones (the key changed since) is dropped. */
  keyColumns: TextList(),
  proposal: Type.Optional(
    Struct({
      seedId: Text(),
      startVersion: Text(),
      sourceIncarnation: Type.Optional(Text()),
      /** Inner bounds, ascending: n bounds make n + 1 chunks. */
      bounds: Type.Array(Type.Array(AnyText(), { minItems: 1, problem: 'must be a non-empty list' }), { problem: 'must be a list' }),
    }),
  ),
});
export type SeedPlanRequest = Static<typeof SeedPlanRequestSchema>;

export interface SeedPlanReply {
  /**
   * `published`: a plan is kept and its chunks not loaded yet were published (`published` of `count`); `needed`: no
   * plan (or one over other key columns, now dropped), propose one; `gone`: the work is no longer in flight.
   */
  status: 'published' | 'needed' | 'gone';
  published?: number;
  count?: number;
}

/**
 * Worker → registry (core NATS, best effort): a worker is handling a stage of this unit of work, sent when
 * it starts and then every few seconds. The registry keeps the last one as the table's last progress
 * (Describe, /metrics) and as the sign of life that lets the work hold a serialized replication's slot.
 */
export const WorkProgressSchema = Struct({
  workId: Text(),
  replicationId: Text(),
  table: TableRefSchema,
  stage: OneOf(WORK_STAGES),
  at: Timestamp(),
  /**
   * The epoch of the attempt that beats, when the worker knows it: a handler of an attempt a later one replaced (a
   * chain batch waiting for a predecessor that will not come) must not keep the unit of work looking alive.
   */
  epoch: Type.Optional(Count()),
});
export type WorkProgress = Static<typeof WorkProgressSchema>;

/**
 * Registry → workers (core NATS, best effort): a unit of work was cancelled (it ran past its timeout) and
 * released; its messages are dropped where they are seen. The fence (`epoch`) is what keeps a cancelled
 * unit's batches out of staging and warehouse; this only saves the work.
 */
export const WorkCancelledSchema = Struct({
  workId: Text(),
  replicationId: Text(),
  table: TableRefSchema,
  reason: AnyText(),
  cancelledAt: Timestamp(),
});
export type WorkCancelled = Static<typeof WorkCancelledSchema>;

/**
 * Worker → registry (request/reply): the configuration a worker needs, secrets included. The worker proves it holds
 * the worker key (SVC_WORKER_KEY); the reply is sealed for that request (crypto's RuntimeConfigSeal).
 */
export interface RuntimeConfigRequest {
  replicationId: string;
  proof: { issuedAt: string; nonce: string; mac: string };
}

export interface RuntimeConfigReply {
  replicationId: string;
  configVersion: number;
  /** The ReplicationConfig as JSON, sealed with the worker key and bound to the replication and the request's nonce. */
  sealedConfig: string;
}

/** Registry → extractor (request/reply): the tables of a replication's source. */
export interface DiscoverTablesRequest {
  replicationId: string;
}

export interface DiscoverTablesReply {
  tables: TableDefinition[];
}

/**
 * Registry → extractor (request/reply): which of a replication's tracked tables have changes past their watermark
 * (the version their next change read starts at), found by one cheap probe of the source for all of them, so that
 * idle tables get no change cycle. Tables by `tableKey()`.
 */
export interface ChangedTablesRequest {
  replicationId: string;
  /** `incarnation`: the one stored with the watermark (absent when unknown); a source that is another one now says `unknown`. */
  tables: { tableName: string; version: string; incarnation?: string }[];
  /**
   * Whether the reply carries schema stamps (they cost the source a catalog read per table, so the registry asks for
   * them every few seconds, not at every probe). Absent (a registry before this field): true.
   */
  schemaStamps?: boolean;
}

export interface ChangedTablesReply {
  /** Tables whose change read would find a change now. */
  changed: string[];
  /** Tables the probe could not judge (tracking gone, version purged): their next cycle says what is wrong. */
  unknown: string[];
  /** By table: a text that changes whenever the table's definition does (SourceConnector.changedTables); empty unless asked. */
  schemaStamps: Record<string, string>;
  /** Bytes of WAL the source keeps for the service's replication slot (PostgreSQL log capture); absent without one. */
  walHeldBytes?: number;
}

/**
 * Registry → extractor (request/reply): remove change tracking of these tables from the replication's
 * source (no replication tracks them any more). Releasing a table not tracked, or gone, is no error.
 */
export interface ReleaseTablesRequest {
  replicationId: string;
  tables: TableRef[];
  /**
   * Also forget the replication's records in its staging database (its fences and seed records, by which another
   * replication writing the same staging tables would go on treating them as shared for a week): of these tables
   * (dropped from TablesToInclude), or of every table when `forgetAllStagingRecords` (the replication is deleted).
   * Best effort: a staging database that cannot be reached fails nothing (the records age out after a week).
   */
  forgetStagingRecords?: TableRef[];
  forgetAllStagingRecords?: boolean;
}

export interface ReleaseTablesReply {
  /** `tableKey()` of every table released, in request order. */
  released: string[];
  /** How many staging records were forgotten; absent when none were asked for or the staging database failed. */
  stagingRecordsForgotten?: number;
}
