import type { Condition, Transaction } from './changes';
import type { CanonicalRow, ColumnSpec, Digest, TableSpec, Value } from './table-spec';

/**
 * One session on a source database, as the generic suite drives every source engine (PeerDB's SuiteSource
 * idea): create tables from specs, apply engine-neutral changes, read rows back as canonical values.
 */
export interface SourceSession {
  /** The engine's name, as the pair reports name it. */
  readonly engine: string;
  /** Creates the tables (and any schema or type they need); `rows` are inserted as well. */
  createTables(tables: readonly { spec: TableSpec; rows?: readonly Record<string, Value>[] }[]): Promise<void>;
  /** Runs the changes in one transaction. */
  apply(work: Transaction): Promise<void>;
  /** Opens a transaction and runs the changes in it, leaving it open until `commit` (a long transaction). */
  begin(work: Transaction): Promise<void>;
  commit(): Promise<void>;
  /** A column added to a table with live rows; `fill` is the value existing rows get (a default), if any. */
  addColumn(spec: TableSpec, column: ColumnSpec, fill?: Value): Promise<void>;
  /** The rows of the spec's columns (all of them, or those `where` selects), as canonical values. */
  readRows(spec: TableSpec, where?: Condition): Promise<CanonicalRow[]>;
  digest(spec: TableSpec, where?: Condition): Promise<Digest>;
  /** Whether `error` is a conflict between concurrent transactions (a deadlock, a serialization failure): the transaction was rolled back. */
  isConflict(error: unknown): boolean;
  /**
   * Makes the service find the table's changes purged, as the engine's retention would after
   * ChangeTrackingRetentionPeriod; null when the engine offers no way to provoke that in a test.
   */
  readonly expireChanges: ((spec: TableSpec) => Promise<void>) | null;
  close(): Promise<void>;
}

/** Which rows of a warehouse table stand for the source's rows: all (Type1, no-key tables) or the current versions (Type2). */
export type WarehouseRows = 'all' | 'current';

/** One session on a warehouse database: the replicated tables read back as canonical values. */
export interface WarehouseSession {
  readonly engine: string;
  /** The rows of the spec's table in warehouse schema `schema`; null when the table does not exist (yet). */
  readRows(schema: string, spec: TableSpec, rows?: WarehouseRows, where?: Condition): Promise<CanonicalRow[] | null>;
  digest(schema: string, spec: TableSpec, rows?: WarehouseRows, where?: Condition): Promise<Digest | null>;
  /** The engine's own SQL, for checks of the service's own columns (svc_sys_*), which every warehouse engine has. */
  query<T extends Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}
