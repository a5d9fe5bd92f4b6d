import type { CsvField } from './csv-rows';

/** A parameter value; strings go as nvarchar, numbers and bigints as bigint, booleans as bit, dates as datetime2. */
export type TsqlValue = string | number | bigint | boolean | Date | null;
export type TsqlParams = Readonly<Record<string, TsqlValue>>;

/** Statements of one connection, inside one transaction when a TsqlDatabase.inTransaction hands it out. */
export interface TsqlSession {
  /**
   * Runs a statement batch with @-parameters; the rows of its last result set. Without parameters it runs at the
   * session's scope (a temporary table it creates outlives it); with them, in sp_executesql's.
   */
  query<Row extends object = Record<string, unknown>>(text: string, params?: TsqlParams): Promise<Row[]>;
  /** Streams rows into a table of nvarchar(max) columns (bulk load, one row in memory at a time); the row count. */
  bulkLoad(table: string, columns: readonly string[], rows: AsyncIterable<CsvField[]>): Promise<number>;
}

/** What `work` decides: commit or roll back, and the result either way. */
export interface TransactionOutcome<T> {
  commit: boolean;
  result: T;
}

/** A SQL Server database: pooled connections, each statement or transaction on one of them. */
export interface TsqlDatabase {
  query<Row extends object = Record<string, unknown>>(text: string, params?: TsqlParams): Promise<Row[]>;
  /** READ COMMITTED; rolled back when `work` throws or says so. */
  inTransaction<T>(work: (session: TsqlSession) => Promise<TransactionOutcome<T>>): Promise<T>;
  close(): Promise<void>;
}
