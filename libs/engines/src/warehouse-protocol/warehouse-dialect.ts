import type { BatchDescriptor, StagedFiles, TableDefinition, TableRef } from '@svc/contracts';
import type { StagedFileReader, TableEnsured, WarehouseTableOptions } from '../capabilities';
import type { WarehouseOwnershipLedger } from '../table-ownership';
import type { ColumnNames, TableHistory } from './warehouse-columns';
import type { ChecksumDialect, ChecksumTable } from '../validation/checksum-sql';
import type { ChecksumQuery } from '../validation/checksum-rows';

/** What every engine's layout of a warehouse table holds; an engine's layout adds its columns and names of its own. */
export interface WarehouseLayout {
  /** The source table the warehouse table replicates. */
  table: TableRef;
  /** The warehouse schema the table and its control objects live in. */
  schema: string;
  target: string;
  shadow: string;
  /** Target and shadow as the engine names them in statements and messages. */
  qualifiedTarget: string;
  qualifiedShadow: string;
  history: TableHistory;
  /** The primary key's columns under their warehouse names. */
  keyColumns: string[];
  addUpdateTimestamp: boolean;
}

export type WarehouseEnsured = TableEnsured & { keptAs?: string };

/** The protocol's "control objects missing → create again and retry" for the dialect's own steps. */
export interface ControlObjectsGuard {
  /** Runs `work` once the schema's control objects are known to exist; created again and run once more when it finds one missing. */
  run<T>(schema: string, what: string, work: () => Promise<T>): Promise<T>;
  /** The dialect made the schema's control objects itself (in its own transaction): no need to make them again. */
  markReady(schema: string): void;
}

/** Which table of a warehouse table's pair. */
export type PairTable = 'target' | 'shadow';

/** What following the source's column types found: the suspected renames, and the type changes still to make after the transaction. */
export interface FollowedTypes<Pending> {
  renames: string[];
  pending: Pending;
}

/**
 * How one engine does each step of the warehouse protocol (WarehouseProtocol): the statements, their
 * parameters and how their answers read. The order of the steps, and what their answers mean, are the
 * protocol's. `Session` is one connection inside one transaction; `Columns` the engine's reading of an existing
 * table's columns; `Pending` the column type changes it makes once ensureTable's transaction has committed.
 */
export interface WarehouseDialect<Session, Layout extends WarehouseLayout, Columns extends ColumnNames = ColumnNames, Pending = unknown> {
  targetTableName(table: TableRef): string;
  layout(definition: TableDefinition, options: WarehouseTableOptions): Layout;
  /** Runs `work` in one transaction, committed when it returns, rolled back when it throws. */
  inTransaction<T>(work: (session: Session) => Promise<T>): Promise<T>;
  /** A schema, table or other object a statement named does not exist (the schema may have been recreated). */
  isMissingObject(error: unknown): boolean;
  /** Makes the schema and its control objects when missing, in transactions of its own. */
  createControlObjects(schema: string): Promise<void>;

  /**
   * The table's own lock, the first step of every load: loads of one table run one at a time. A group of change batches
   * takes the locks of all its tables first (loadChangeGroup), so this reads nothing a transaction's snapshot would
   * come from: whatever a load does after its lock must see what the loads before it committed.
   */
  lockTable(session: Session, layout: Layout): Promise<void>;
  /**
   * The first step of a load once its locks are held. Raises the table's fence for the replication to the batch's epoch;
   * false, changing nothing, when the fence is above it (stale).
   */
  raiseFence(session: Session, layout: Layout, batch: BatchDescriptor): Promise<boolean>;
  /**
   * Read before the load's transaction, when the engine keeps a record of loaded batches a load must not read
   * inside it: true when the batch is there. Its answer counts only after the fence (loaded before but stale is stale).
   */
  loadedOutsideTransaction?(layout: Layout, batchId: string): Promise<boolean>;
  /** True when the batch was loaded into the table before. */
  isLoaded(session: Session, layout: Layout, batchId: string): Promise<boolean>;
  recordLoaded(session: Session, layout: Layout, batchId: string): Promise<void>;

  /** Part 0 of a seed (a chunked seed's first chunk to arrive): the shadow emptied for it, and the seed recorded as the table's current one. */
  startSeed(session: Session, layout: Layout, seedId: string): Promise<void>;
  /** The seed the table's shadow collects; null before its first seed. */
  currentSeedId(session: Session, layout: Layout): Promise<string | null>;
  /** A seed part's files loaded into the shadow; the row count. */
  loadSeedFiles(session: Session, layout: Layout, files: StagedFiles, reader: StagedFileReader): Promise<number>;
  /** The final part: the shadow's rows become the target's (merged, or the shadow swapped in). */
  completeSeed(session: Session, layout: Layout): Promise<void>;
  /** A change batch's files loaded into the transaction's load table; the row count. */
  loadChangeFiles(session: Session, layout: Layout, files: StagedFiles, reader: StagedFileReader): Promise<number>;
  /** The load table's `rowCount` changes merged into the target (Type1 or Type2), or the target rebuilt with them where the engine can. */
  mergeChanges(session: Session, layout: Layout, rowCount: number): Promise<void>;
  /** A chunked seed's close: the load table's changes applied to the shadow (its rows replaced by key; no history). */
  mergeChangesIntoShadow(session: Session, layout: Layout): Promise<void>;

  /**
   * Runs ensureTable's `work` in one transaction, after the table's lock and whatever control objects the engine
   * makes there; `controlObjects` runs its steps under the protocol's retry.
   */
  inEnsureTransaction<T>(layout: Layout, controlObjects: ControlObjectsGuard, work: (session: Session) => Promise<T>): Promise<T>;
  /** The table's columns; null when it does not exist. */
  tableColumns(session: Session, layout: Layout, table: PairTable): Promise<Columns | null>;
  /** The schema's record of the tables the service created, in the ensuring transaction. */
  ownershipLedger(session: Session, layout: Layout): WarehouseOwnershipLedger;
  /**
   * Brings the existing tables' column types to the source's (or plans it, for after the transaction); throws
   * ColumnTypeChangeError, before anything is altered, for a change the engine cannot follow. `target` is null
   * when it is missing or is set aside (another ScdType).
   */
  followColumnTypes(session: Session, layout: Layout, target: Columns | null, shadow: Columns | null): Promise<FollowedTypes<Pending>>;
  /** Renames the target of the previous ScdType out of the way; the name it now has. */
  setAside(session: Session, layout: Layout, target: Columns): Promise<string>;
  createTable(session: Session, layout: Layout, table: PairTable): Promise<void>;
  /** Adds the columns the table lacks; the source names of those added. */
  addMissingColumns(session: Session, layout: Layout, table: PairTable, existing: Columns): Promise<string[]>;
  /** Makes the pending type changes once the ensuring transaction committed; the notes of the target's (columnChangeNotes). */
  finishColumnTypes(layout: Layout, pending: Pending): Promise<string[]>;
  hasTable(table: TableRef, options: WarehouseTableOptions): Promise<boolean>;
  /** The schema's record of loaded batches, outside a load. */
  hasLoaded(schema: string, batchId: string): Promise<boolean>;
  /** True when the table's fence is above the batch's epoch; `controlObjects` when the engine's reading needs them. */
  isStale(layout: Layout, batch: BatchDescriptor, controlObjects: ControlObjectsGuard): Promise<boolean>;
  /** Forgets batches loaded before `loadedBefore`; how many. */
  forgetLoadedBatches(schema: string, loadedBefore: Date): Promise<number>;

  /** Validation: how the engine spells checksum statements. */
  readonly checksumDialect: ChecksumDialect;
  /** Validation reads the target: a Type1 table's rows, a Type2 table's current rows, the source's columns only. */
  checksumTable(layout: Layout, definition: TableDefinition): ChecksumTable;
  /**
   * One read-only snapshot (a transaction on one session) for validation's statements on the layout's table; `close`
   * ends it. Where a load can empty and refill the table in one transaction (a rebuild), the snapshot is taken only once
   * the table's lock is held, so it never sees the table as empty.
   */
  openChecksumSession(layout: Layout): Promise<{ query: ChecksumQuery; close(): Promise<void> }>;
  close(): Promise<void>;
}
