import type { BatchDescriptor, ColumnDefinition, TableDefinition, TableRef } from '@svc/contracts';
import type { CsvChunks } from '../batch';
import type { ColumnTypeDrift, TypeDialect, TypedColumn } from '../column-type-change';

/** What a transaction's work decides: commit or roll back, and the result either way. */
export interface TransactionStep<T> {
  commit: boolean;
  result: T;
}

/** The replication's current seed of a table, as the staging database records it. */
export interface SeedRecord {
  seedId: string;
  /** The table was emptied when the seed began. */
  truncated: boolean;
  /** Another replication began a seed of the (keyless) table after this one. */
  superseded: boolean;
}

/** A table's columns as read at the start of ensureTable; their types are read only when the table exists. */
export interface PresentColumns<Column extends TypedColumn = TypedColumn> {
  names: readonly string[];
  typed(): Promise<Column[]>;
}

/** Which batch's rows: a seed's rows are inserts, a change batch's lead with their operation. */
export type BatchRowsKind = BatchDescriptor['body']['kind'];

/**
 * How one engine does each step of the staging protocol (StagingProtocol): the statements, their parameters
 * and how their answers read. The order of the steps, and what their answers mean, are the protocol's.
 * `Session` is one connection inside one transaction.
 */
export interface StagingDialect<Session, Column extends TypedColumn = TypedColumn> {
  /** The spelling of the types presentColumns and wantedType give, for planColumnTypes. */
  readonly typeDialect: TypeDialect;
  /** Runs `work` in one transaction, rolled back when it throws or says so. */
  inTransaction<T>(work: (session: Session) => Promise<TransactionStep<T>>): Promise<T>;
  /** A relation, schema or other object the statement named does not exist (the control schema may be gone). */
  isMissingObject(error: unknown): boolean;

  /** The database-wide lock every change of the control schema or of a table's definition takes first. */
  lockDdl(session: Session): Promise<void>;
  /** Creates whatever of the control schema is missing (run under lockDdl). */
  createControlObjects(session: Session): Promise<void>;
  /**
   * The table's own lock: batches of one table, and changes of its definition, run one at a time. A group of change
   * batches takes the locks of all its tables first (applyChangeGroup), so this reads nothing of the tables.
   */
  lockTable(session: Session, table: TableRef): Promise<void>;
  /** The same lock in shared mode: chunks of one seed, which write apart, hold it together; lockTable waits for them all. */
  lockTableShared(session: Session, table: TableRef): Promise<void>;
  /** The table's fence for the replication as `session` reads it; null before the table's first batch. */
  fenceEpoch(session: Session, replicationId: string, table: TableRef): Promise<number | null>;

  /** Raises the table's fence for the replication to the batch's epoch; false when the fence is above it (stale). */
  raiseFence(session: Session, batch: BatchDescriptor): Promise<boolean>;
  /** True when the table's fence for the replication is above the batch's epoch. */
  isStale(batch: BatchDescriptor): Promise<boolean>;
  /** Records the batch as applied; false when it was recorded before. */
  recordBatch(session: Session, batchId: string): Promise<boolean>;
  hasApplied(batchId: string): Promise<boolean>;
  /** Forgets batches recorded before `appliedBefore`; how many. */
  forgetAppliedBatches(appliedBefore: Date): Promise<number>;
  /** Deletes the replication's fence and seed records of the table, or of every table; rows others hold are skipped. How many went. */
  forgetReplication(replicationId: string, table?: TableRef): Promise<number>;

  /** True when another replication writes the table too. */
  isShared(session: Session, replicationId: string, table: TableRef): Promise<boolean>;
  startSeed(session: Session, replicationId: string, table: TableRef, seedId: string, truncated: boolean): Promise<void>;
  currentSeed(session: Session, replicationId: string, table: TableRef): Promise<SeedRecord | undefined>;
  truncate(session: Session, table: TableRef): Promise<void>;

  /** Seed rows written straight into the table; the row count. */
  appendRows(session: Session, definition: TableDefinition, rows: CsvChunks): Promise<number>;
  /** The batch's rows loaded into the transaction's batch table; the row count. */
  loadBatchRows(session: Session, definition: TableDefinition, rows: CsvChunks, kind: BatchRowsKind): Promise<number>;
  /**
   * Where the engine can: applies the batch table's rows by rebuilding the table when they change a large share of it
   * (the engine's measured threshold) and returns true; false, having changed nothing, to have them merged by key.
   */
  rebuildWithBatch?(session: Session, definition: TableDefinition, rowCount: number): Promise<boolean>;
  /** Deletes from the table every key the batch table names. */
  deleteBatchKeys(session: Session, definition: TableDefinition): Promise<void>;
  /** Inserts the batch table's rows (of a change batch: those of inserts and updates). */
  insertBatchRows(session: Session, definition: TableDefinition, kind: BatchRowsKind): Promise<void>;

  presentColumns(session: Session, table: TableRef): Promise<PresentColumns<Column>>;
  /** The column's type in the staging table, spelled as presentColumns spells types. */
  wantedType(column: ColumnDefinition): string;
  /** Creates the table (and its schema when missing). */
  createTable(session: Session, definition: TableDefinition): Promise<void>;
  /** Alters the columns to their wider types; `present` is the table's columns as presentColumns read them. */
  widenColumns(session: Session, table: TableRef, widen: readonly ColumnTypeDrift[], present: readonly Column[]): Promise<void>;
  addColumns(session: Session, table: TableRef, missing: readonly ColumnDefinition[]): Promise<void>;
  /** The table's column names in ordinal order; null when it does not exist. */
  existingColumns(table: TableRef): Promise<string[] | null>;

  /** The record of the tables the service created (see claimTable). */
  isOwnedTable(session: Session, table: TableRef): Promise<boolean>;
  isNamedByEarlierVersion(session: Session, table: TableRef): Promise<boolean>;
  recordOwnedTable(session: Session, table: TableRef): Promise<void>;

  close(): Promise<void>;
}
