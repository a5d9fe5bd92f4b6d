import type { BatchDescriptor, RetentionPeriod, ScdType, StagedFiles, TableDefinition, TableRef } from '@svc/contracts';
import type { ApplyOutcome, CsvChunks } from './batch';
import type { SourceChecksums, WarehouseChecksums } from './validation/checksums';

/** A stream of rows plus what is known only once it has been read to the end. */
export interface RowStream {
  rows: CsvChunks;
  /** Resolves after `rows` is exhausted: the number of rows read. Rejects if reading failed. */
  finished: Promise<{ rowCount: number }>;
}

export interface SnapshotRead extends RowStream {
  /** Change-tracking version the snapshot starts at: changes at or after it are read by tracking. */
  startVersion: string;
  /** The source database's incarnation the snapshot was read in (see SourceIncarnation); null when it cannot be read. */
  sourceIncarnation: string | null;
}

/**
 * An opaque text naming which life of the source database a version belongs to: it changes when the database is
 * restored from a backup, restored to a point in time, failed over to a replica that may have been behind, or
 * recreated. Stored with every watermark; a change read whose watermark names another incarnation reseeds.
 */
export type SourceIncarnation = string;

/** How a read treats columns of the table that its definition does not name. */
export interface ReadOptions {
  /**
   * The definition names a chosen subset of the columns (SchemaReplication off): columns the source has
   * besides them are expected. Otherwise a column the read's snapshot has and the definition lacks means
   * the definition is out of date, and the read fails with a stale-definition error instead of dropping it.
   */
  columnsProjected?: boolean;
  /**
   * A change read: the incarnation stored with its watermark (absent for a watermark stored before incarnations were).
   * The read fails with SourceIncarnationChangedError when the source is another incarnation now.
   */
  incarnation?: SourceIncarnation;
  /** A snapshot read: only the rows whose key is in this range (a chunk of a chunked seed). */
  keyRange?: SeedKeyRange;
}

/** Rows whose key is at or above `lower` and below `upper` (key texts, one per key column, as planSeedChunks gave them; null: unbounded). */
export interface SeedKeyRange {
  lower: readonly string[] | null;
  upper: readonly string[] | null;
}

/** How a chunked seed of a table is cut (SourceConnector.planSeedChunks). */
export interface SeedChunkPlan {
  /**
   * The capture horizon, taken before any chunk is read: a change read from it finds every change a snapshot opened
   * later may have missed or seen, so applying its changes over the chunks leaves the table exactly the source's.
   */
  startVersion: string;
  sourceIncarnation: SourceIncarnation | null;
  /** Inner bounds in key order (each the key's column texts): n bounds cut the table into n + 1 chunks; none, one. */
  bounds: string[][];
}

export interface ChangeRead extends RowStream {
  /** Exclusive upper bound: the next read starts here. Equal to `fromVersion` when nothing changed. */
  toVersion: string;
  /** The read stopped at the record limit: committed changes from toVersion on are waiting for the next read. */
  limited: boolean;
  /** The source database's incarnation the changes were read in; null when it cannot be read. */
  sourceIncarnation: SourceIncarnation | null;
}

export interface PurgeOutcome {
  purgedRows: number;
  /** What happened to a retention the database holds for every replication of it (for the log), when anything did. */
  retention?: string;
}

/** Source database: what the extractor needs (seed, track changes, read net changes). */
/** A tracked table and the version its next change read starts at. */
export interface TableWatermark {
  table: TableRef;
  version: string;
  /** The incarnation stored with the watermark: a source that is another incarnation now puts the table in `unknown`. */
  incarnation?: SourceIncarnation;
}

/** What SourceConnector.changedTables found; a table given and in neither list has no change past its watermark. */
export interface ChangedTables {
  changed: TableRef[];
  unknown: TableRef[];
  /**
   * For each table it could read, a text that changes whenever the table's definition does (columns, types, key):
   * a schema change records no row change, so the caller compares stamps between probes to give such a table its
   * cycle, which describes it again. Opaque; equal stamps mean no change seen.
   */
  schemaStamps: { table: TableRef; stamp: string }[];
  /** Bytes of WAL the source keeps for this service's change capture (a replication slot), when it has one. */
  walHeldBytes?: number;
}

export interface ChangeProbeOptions {
  /** Whether to read each table's schema stamp (a catalog read per table; without it `schemaStamps` is empty). */
  schemaStamps: boolean;
}

export interface SourceConnector {
  /** Every user table (outside system schemas and the change-tracking schema). */
  discoverTables(): Promise<TableDefinition[]>;
  describeTable(table: TableRef): Promise<TableDefinition | null>;
  /** Idempotent: installs change capture for the table (must precede its seed snapshot). */
  enableTracking(definition: TableDefinition): Promise<void>;
  /** Removes change capture and recorded changes of the table. */
  disableTracking(table: TableRef): Promise<void>;
  /**
   * Opens a consistent snapshot and streams every row; the connection is released when the stream ends.
   * Both reads check the definition against the table as their snapshot sees it (see ReadOptions).
   */
  readSnapshot(definition: TableDefinition, options?: ReadOptions): Promise<SnapshotRead>;
  /**
   * Cuts a keyed table's seed into key ranges of about `chunkBytes` each, for readSnapshot's `keyRange`; tracking must be
   * enabled before. Absent on an engine that seeds a table as one snapshot.
   */
  planSeedChunks?(definition: TableDefinition, chunkBytes: number): Promise<SeedChunkPlan>;
  /**
   * Net change per key with version in [fromVersion, toVersion), joined to the current row (a key whose
   * row is gone reads as a delete). At most about `limit` change records; a transaction is never split.
   */
  readChanges(definition: TableDefinition, fromVersion: string, limit: number, options?: ReadOptions): Promise<ChangeRead>;
  /** Versions below it have been purged: a watermark below it must reseed. Null when nothing was purged. */
  minValidVersion(table: TableRef): Promise<string | null>;
  /**
   * Which of these tracked tables a change read from its watermark would find a change in now, in a constant number
   * of statements for all of them (never one per table): the scheduler gives change cycles to those only. A false
   * "changed" costs one empty cycle; a false "unchanged" would delay data, so a table the probe cannot judge (its
   * tracking gone, its watermark purged or ahead of the source) is `unknown`, and gets its cycle, which says why.
   */
  changedTables(watermarks: readonly TableWatermark[], options: ChangeProbeOptions): Promise<ChangedTables>;
  /**
   * Purges change records older than the retention period and raises the minimum valid version. An engine
   * whose retention is the database's own (SQL Server) reconciles it instead and says what it did in `retention`.
   */
  purgeChanges(table: TableRef, retention: RetentionPeriod): Promise<PurgeOutcome>;
  /**
   * Validation's source side of the table (checksums computed in SQL, snapshots pinned to a change-tracking version);
   * absent on an engine that cannot validate yet.
   */
  checksums?(definition: TableDefinition): SourceChecksums;
  close(): Promise<void>;
}

/** What ensureTable did to a table. */
export interface TableEnsured {
  created: boolean;
  /** Columns the existing table lacked and got. */
  addedColumns: string[];
  /** Columns widened to the source's new type, or kept wider than it, in words for the SchemaChange alert (columnChangeNotes). */
  schemaChanges?: string[];
  /** A column gone from the source while one of its type appeared in its place, in words (columnChangeNotes): left stale, so always alerted. */
  suspectedRenames?: string[];
}

/** Staging database: a replica of the source's tables. */
export interface StagingConnector {
  /**
   * Creates the table (recording it as the service's), or adds the columns it lacks and widens those whose type the
   * source widened (a change it cannot follow losslessly is ColumnTypeChangeError); returns the names of added columns. An existing table the service did not create is left as it is: ForeignTableError (claimTable). Runs
   * before every batch of the table, so applyBatch writes only a table this passed.
   */
  ensureTable(definition: TableDefinition): Promise<TableEnsured>;
  /** The table's column names in ordinal order; null when the table does not exist (yet). */
  existingColumns(table: TableRef): Promise<string[] | null>;
  /**
   * Applies one batch in one transaction; a batch applied before (or a part of an abandoned seed) is a
   * no-op. A batch whose epoch is below the table's fence is stale: nothing applied, `rows` never read.
   */
  applyBatch(batch: BatchDescriptor, rows: CsvChunks): Promise<ApplyOutcome>;
  /**
   * Applies the change batches of several tables (a group: small changes that travel together) in one transaction,
   * each member as applyBatch would (its table's lock taken in table-name order, its fence, its batch log, its merge);
   * outcomes in the members' order. A stale member is skipped (its rows never read), one applied before is a no-op
   * (its rows drained after the commit). Any other failure rolls the whole group back and is thrown: the caller then
   * applies the members one by one, so that one table's failure fails that table alone. Every member must be a plain
   * change batch (not a seed's close, not a later batch of a backlog) of a keyed table, each of another table.
   */
  applyChangeGroup(members: readonly GroupedRows[]): Promise<ApplyOutcome[]>;
  /** True once the batch has been applied (seed part k waits for part k-1). */
  hasApplied(batchId: string): Promise<boolean>;
  /** True when a batch of a newer unit of work of the table (a higher epoch) has been applied: this one would be refused. */
  isStale(batch: BatchDescriptor): Promise<boolean>;
  /** Forgets batches applied before `appliedBefore` (they can no longer arrive again); returns how many. */
  forgetAppliedBatches(appliedBefore: Date): Promise<number>;
  /**
   * Forgets a replication's fences and seed records, of `tables` or of every table (the replication is deleted, or the
   * tables left it): another replication writing those tables no longer treats them as shared. Records a batch in
   * flight holds are skipped (they age out in a week). Returns how many went.
   */
  forgetReplication(replicationId: string, tables?: readonly TableRef[]): Promise<number>;
  close(): Promise<void>;
}

export interface WarehouseTableOptions {
  /** Warehouse.DatabaseSchema */
  schema: string;
  scdType: ScdType;
  addUpdateTimestamp: boolean;
}

/** Reads staged files (the loader's S3 access), so warehouses that stream rows need not know S3. */
export interface StagedFileReader {
  /** Uncompressed CSV of one part. */
  readPart(key: string): Promise<CsvChunks>;
}

/** One table's change batch and its rows in a group applied in one staging transaction (applyChangeGroup). */
export interface GroupedRows {
  batch: BatchDescriptor;
  rows: CsvChunks;
}

/** One table's change batch and its staged files in a group loaded in one warehouse transaction (loadChangeGroup). */
export interface GroupedFiles {
  batch: BatchDescriptor;
  files: StagedFiles;
}

/** Warehouse database: load staged files and merge them (SCD Type1 / Type2). */
export interface WarehouseConnector {
  /** The warehouse table name for a source table: the name itself for the default schema, else `<schema>_<name>`. */
  targetTableName(table: TableRef): string;
  /**
   * Creates the table or adds the columns it lacks and widens as the staging connector does. When the existing table has the other ScdType's shape it is
   * renamed (`keptAs`, its data stays) and a new one created, to be filled by the reseed that follows the change.
   * Only tables the service created are touched: an existing target or shadow it did not is ForeignTableError.
   */
  ensureTable(definition: TableDefinition, options: WarehouseTableOptions): Promise<TableEnsured & { keptAs?: string }>;
  /**
   * Loads the files and merges them in one transaction; a batch loaded before (or a part of an abandoned
   * seed) is a no-op. A batch whose epoch is below the table's fence is stale: nothing loaded.
   */
  loadBatch(batch: BatchDescriptor, files: StagedFiles, reader: StagedFileReader, options: WarehouseTableOptions): Promise<ApplyOutcome>;
  /**
   * Loads the change batches of several tables in one transaction, each member as loadBatch would; outcomes in the
   * members' order, the same rules as StagingConnector.applyChangeGroup (a failure rolls back every member and is thrown).
   */
  loadChangeGroup(members: readonly GroupedFiles[], reader: StagedFileReader, options: WarehouseTableOptions): Promise<ApplyOutcome[]>;
  /** True when the table's warehouse table exists (a seed part waiting for its predecessor stops when it is gone). */
  hasTable(table: TableRef, options: WarehouseTableOptions): Promise<boolean>;
  /** True once the batch has been loaded (seed part k waits for part k-1). */
  hasLoaded(batchId: string, options: WarehouseTableOptions): Promise<boolean>;
  /** True when a batch of a newer unit of work of the table (a higher epoch) has been loaded: this one would be refused. */
  isStale(batch: BatchDescriptor, options: WarehouseTableOptions): Promise<boolean>;
  /** Forgets batches loaded into the schema before `loadedBefore` (they can no longer arrive again); returns how many. */
  forgetLoadedBatches(loadedBefore: Date, options: WarehouseTableOptions): Promise<number>;
  /** Validation's warehouse side of the table: a Type1 table's rows, a Type2 table's current rows, without system columns. */
  checksums(definition: TableDefinition, options: WarehouseTableOptions): WarehouseChecksums;
  close(): Promise<void>;
}
