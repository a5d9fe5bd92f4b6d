import { EventEmitter } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { mssqlDriver, type CsvField } from '@svc/sqlserver/common';
import { sourceSql } from '@svc/sqlserver/source';
import type { ConnectionPool } from 'mssql';
import { Pool, type PoolClient, type QueryResult } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { installTsqlRuntime } from './tsql-runtime';
import { answeredRow, storedText } from './unpaired-halves';
import { translateTsql, type ParameterType, type PostgresStatement, type TsqlInput } from './tsql-to-postgres';

/** An mssql error as the driver raises it: a name (RequestError, TransactionError, ConnectionError) and a code. */
export class MssqlDoubleError extends Error {
  constructor(
    name: string,
    message: string,
    readonly code: string,
    readonly number?: number,
  ) {
    super(message);
    this.name = name;
  }
}

const CURRENT_VERSION_SQL = sourceSql.CURRENT_VERSION_SQL;

/**
 * An mssql ConnectionPool whose statements run, translated (tsql-to-postgres.ts), in a PostgreSQL database holding the
 * Change Tracking model (change-tracking-on-postgres.ts). It keeps the rules of mssql 12 that MssqlTransactionDouble
 * (@svc/sqlserver/common/testing) describes, on real connections:
 *   - requests and transactions take their connection through the pool object's acquire/release, as mssql's do, so that
 *     gateMssqlPool sees them; a request on the pool holds one for its statement, a transaction from begin() until
 *     commit() or rollback() succeeds;
 *   - begin(ISOLATION_LEVEL.SNAPSHOT) is BEGIN ISOLATION LEVEL REPEATABLE READ, PostgreSQL's snapshot isolation;
 *   - a transaction lends its connection to one request at a time: another fails with EREQINPROG, and so do commit()
 *     and rollback() (answered on the next turn of the event loop) while a request holds it;
 *   - stream mode (`request.stream = true`, `arrayRowMode`): 'row' events with arrays, held while paused; a server error
 *     is an 'error' while the request still holds the connection; cancel() drops the unread rows and reports ECANCEL
 *     the same way; 'done' comes after the connection is given back, and the promise resolves in any case.
 * Rows are fetched whole and then emitted (the snapshot does not move while they are). A statement the translator
 * does not know fails as a RequestError and is kept in `refused`.
 */
export interface PoolOnPostgresSettings {
  /**
   * SQL Server's SNAPSHOT transaction takes its snapshot at its first access to data, which CHANGE_TRACKING_CURRENT_VERSION()
   * may not be: when set, a transaction's first statement, if it is CURRENT_VERSION_SQL, is answered outside it (by the
   * committed state at that moment), and the snapshot starts with the next statement.
   */
  versionReadBeforeSnapshot?: boolean;
  /** Called after each statement has run and before its result is handed over. */
  afterStatement?: (statement: string, where: 'pool' | 'transaction') => Promise<void>;
}

interface Recordset {
  recordset: Record<string, unknown>[] | undefined;
  recordsets: Record<string, unknown>[][];
  rowsAffected: number[];
  output: Record<string, unknown>;
}

/** PostgreSQL's isolation level for mssql's (the driver is loaded on first use, as the services load it). */
function isolationLevelOf(level: number | undefined): string | undefined {
  const levels = mssqlDriver().ISOLATION_LEVEL;
  if (level === undefined || level === levels.READ_COMMITTED) return 'READ COMMITTED';
  if (level === levels.SNAPSHOT) return 'REPEATABLE READ';
  return undefined;
}

/** How many rows a request emits in one turn of the event loop. */
const ROWS_PER_TURN = 50;

export class MssqlPoolOnPostgres {
  /** Every statement, in the order it ran. */
  readonly statements: { statement: string; where: 'pool' | 'transaction' }[] = [];
  /** Statements the translator refused. */
  readonly refused: string[] = [];
  /** Transactions begun and not ended (each holds a connection). */
  openTransactions = 0;
  private readonly postgres: Pool;

  constructor(
    databaseUrl: string,
    readonly settings: PoolOnPostgresSettings,
  ) {
    // tsql first on the path: its + on text (the functions and types are named with their schema).
    this.postgres = new Pool({ connectionString: databaseUrl, max: 12, options: '-c search_path=tsql,public' });
    // A connection that dies while idle must not crash the process (as connectSqlServer's pool).
    this.postgres.on('error', () => undefined);
  }

  /** Connects once and installs the T-SQL runtime when the database has none (tsql-runtime.ts). */
  async ready(): Promise<this> {
    await installTsqlRuntime(this.postgres);
    return this;
  }

  get connectionPool(): ConnectionPool {
    return this as unknown as ConnectionPool;
  }

  /** mssql's pool.acquire: a connection for a request or transaction (gateMssqlPool replaces it on the instance). */
  acquire(_requester: unknown): Promise<PoolClient> {
    return this.postgres.connect();
  }

  release(connection: PoolClient): void {
    connection.release();
  }

  request(): RequestOnPostgres {
    return new RequestOnPostgres(this, null);
  }

  transaction(): TransactionOnPostgres {
    return new TransactionOnPostgres(this);
  }

  async close(): Promise<void> {
    await this.postgres.end();
  }

  /** Runs a statement on `client` (or, for a version read outside the snapshot, on a connection of its own). */
  async run(client: PoolClient, statement: string, inputs: ReadonlyMap<string, TsqlInput>, arrays: boolean, where: 'pool' | 'transaction', outsideSnapshot: boolean) {
    this.statements.push({ statement, where });
    let translated: PostgresStatement;
    try {
      translated = translateTsql(statement, inputs);
    } catch (error) {
      this.refused.push(statement);
      throw requestError(error);
    }
    const target = outsideSnapshot ? this.postgres : client;
    try {
      const answered: unknown = arrays
        ? await target.query({ text: translated.text, values: translated.values, rowMode: 'array' })
        : translated.values.length === 0
          ? await target.query(translated.text)
          : await target.query({ text: translated.text, values: translated.values });
      // Several statements (a translated batch without parameters) answer with the last one's rows, as a batch does.
      const results = (Array.isArray(answered) ? answered : [answered]) as QueryResult[];
      const result = results[results.length - 1];
      return { rows: (result?.rows ?? []).map(answeredRow), rowCount: result?.rowCount ?? 0 };
    } catch (error) {
      throw requestError(error);
    }
  }
}

/** mssql's RequestError for a failed statement. */
function requestError(error: unknown): MssqlDoubleError {
  const message = error instanceof Error ? error.message : String(error);
  return Object.assign(new MssqlDoubleError('RequestError', message, 'EREQUEST', sqlServerNumberOf(error)), { cause: error });
}

/**
 * The SQL Server error number of a PostgreSQL failure, where the service classifies by it: a deadlock (1205), a
 * primary-key violation (2627), an object that does not exist (208), a snapshot update conflict (3960).
 */
function sqlServerNumberOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case '40P01':
      return 1205;
    case '23505':
      return 2627;
    case '42P01':
      return 208;
    case '40001':
      return 3960;
    default:
      return undefined;
  }
}

export class TransactionOnPostgres {
  client: PoolClient | null = null;
  statementsRun = 0;
  private active: RequestOnPostgres | null = null;

  constructor(private readonly pool: MssqlPoolOnPostgres) {}

  async begin(isolationLevel?: number): Promise<this> {
    if (this.client) throw new MssqlDoubleError('TransactionError', 'Transaction has already begun.', 'EALREADYBEGUN');
    const level = isolationLevelOf(isolationLevel);
    if (level === undefined) throw new Error(`the PostgreSQL double has no isolation level ${isolationLevel}`);
    const client = await this.pool.acquire(this);
    try {
      await client.query(`BEGIN ISOLATION LEVEL ${level}`);
    } catch (error) {
      this.pool.release(client);
      throw error;
    }
    this.client = client;
    this.pool.openTransactions += 1;
    return this;
  }

  request(): RequestOnPostgres {
    return new RequestOnPostgres(this.pool, this);
  }

  commit(): Promise<void> {
    return this.end('commit');
  }

  rollback(): Promise<void> {
    return this.end('rollback');
  }

  /**
   * mssql's Transaction.acquire, which MssqlDatabase's bulk load calls: lends the connection to `request`, as a tedious
   * Connection whose newBulkLoad and execBulkLoad COPY the rows into the table (bulkLoadOnPostgres).
   */
  acquire(request: RequestOnPostgres, callback: (error: Error | null, connection?: BulkConnection) => void): void {
    const lent = this.lend(request);
    if (lent instanceof MssqlDoubleError) setImmediate(callback, lent);
    else setImmediate(callback, null, bulkConnection(lent, () => this.giveBack(request)));
  }

  /** mssql's Transaction.release of a connection acquire lent. */
  release(connection: BulkConnection): void {
    connection.giveBack();
  }

  /** Transaction.acquire: the connection for `request`, or why not. */
  lend(request: RequestOnPostgres): PoolClient | MssqlDoubleError {
    if (!this.client) return new MssqlDoubleError('TransactionError', 'Transaction has not begun. Call begin() first.', 'ENOTBEGUN');
    if (this.active) return new MssqlDoubleError('TransactionError', "Can't acquire connection for the request. There is another request in progress.", 'EREQINPROG');
    this.active = request;
    return this.client;
  }

  giveBack(request: RequestOnPostgres): void {
    if (this.active === request) this.active = null;
  }

  private async end(call: 'commit' | 'rollback'): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    const client = this.client;
    if (!client) throw new MssqlDoubleError('TransactionError', 'Transaction has not begun. Call begin() first.', 'ENOTBEGUN');
    if (this.active) throw new MssqlDoubleError('TransactionError', `Can't ${call} transaction. There is a request in progress.`, 'EREQINPROG');
    this.client = null;
    this.pool.openTransactions -= 1;
    try {
      const result = await client.query(call === 'commit' ? 'COMMIT' : 'ROLLBACK');
      // PostgreSQL answers COMMIT of a failed transaction with ROLLBACK; SQL Server refuses to commit a doomed one.
      if (call === 'commit' && result.command === 'ROLLBACK') throw new MssqlDoubleError('TransactionError', 'Transaction has been aborted.', 'EABORT');
    } finally {
      this.pool.release(client);
    }
  }
}

export class RequestOnPostgres extends EventEmitter {
  stream = false;
  arrayRowMode = false;
  canceled = false;
  private readonly inputs = new Map<string, TsqlInput>();
  private paused = false;
  private pending: unknown[][] = [];
  private drained: (() => void) | undefined;
  private pumpScheduled = false;

  constructor(
    private readonly pool: MssqlPoolOnPostgres,
    private readonly transaction: TransactionOnPostgres | null,
  ) {
    super();
  }

  input(name: string, type: unknown, value: unknown): this {
    if (value instanceof Date) {
      // tedious sends a Date as UTC (useUTC, the default).
      this.inputs.set(name, { type: 'timestamp', value: value.toISOString().replace(/Z$/, '') });
      return this;
    }
    if (value !== null && typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new Error(`the PostgreSQL model of SQL Server takes text, numbers, booleans and dates only, not ${typeof value}`);
    }
    this.inputs.set(name, { type: parameterType(type), value: typeof value === 'string' ? storedText(value) : value });
    return this;
  }

  query(statement: string): Promise<Recordset> {
    return this.execute(statement);
  }

  batch(statement: string): Promise<Recordset> {
    return this.execute(statement);
  }

  pause(): boolean {
    if (!this.stream) return false;
    this.paused = true;
    return true;
  }

  resume(): boolean {
    if (!this.stream) return false;
    this.paused = false;
    this.schedulePump();
    return true;
  }

  cancel(): boolean {
    this.canceled = true;
    this.schedulePump();
    return true;
  }

  private async execute(statement: string): Promise<Recordset> {
    // mssql runs a request on a later turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    const where = this.transaction ? 'transaction' : 'pool';
    let client: PoolClient;
    if (this.canceled) return this.finish(new MssqlDoubleError('RequestError', 'Canceled.', 'ECANCEL'), undefined, false);
    if (this.transaction) {
      const lent = this.transaction.lend(this);
      if (lent instanceof MssqlDoubleError) return this.finish(lent, undefined, false);
      client = lent;
    } else {
      try {
        client = await this.pool.acquire(this);
      } catch (error) {
        return this.finish(error instanceof Error ? error : new Error(String(error)), undefined, false);
      }
    }
    let failure: Error | undefined;
    let rows: unknown[] = [];
    let rowCount = 0;
    try {
      const outsideSnapshot =
        this.transaction !== null && this.transaction.statementsRun === 0 && this.pool.settings.versionReadBeforeSnapshot === true && statement === CURRENT_VERSION_SQL;
      if (this.transaction) this.transaction.statementsRun += 1;
      const answer = await this.pool.run(client, statement, this.inputs, this.stream && this.arrayRowMode, where, outsideSnapshot);
      rows = answer.rows;
      rowCount = answer.rowCount;
      await this.pool.settings.afterStatement?.(statement, where);
      if (this.stream) await this.emitRows(rows as unknown[][]);
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
      // tedious reports a stream's error while the request still holds the connection.
      if (this.stream) this.emit('error', failure);
    }
    if (this.transaction) this.transaction.giveBack(this);
    else this.pool.release(client);
    return this.finish(failure, { rows: rows as Record<string, unknown>[], rowCount }, failure !== undefined);
  }

  /** base/request.js: in stream mode an error not yet reported goes out as 'error', then 'done', and the promise resolves. */
  private finish(error: Error | undefined, result: { rows: Record<string, unknown>[]; rowCount: number } | undefined, reported: boolean): Promise<Recordset> {
    const rowsAffected = [result?.rowCount ?? 0];
    if (this.stream) {
      if (error && !reported) this.emit('error', error);
      this.emit('done', { output: {}, rowsAffected });
      return Promise.resolve({ recordset: undefined, recordsets: [], rowsAffected, output: {} });
    }
    if (error) return Promise.reject(error);
    const recordset = result?.rows ?? [];
    return Promise.resolve({ recordset, recordsets: [recordset], rowsAffected, output: {} });
  }

  /** Emits the rows, holding them while paused; resolves when all are out, rejects with ECANCEL when cancelled first. */
  private emitRows(rows: unknown[][]): Promise<void> {
    this.pending = [...rows];
    return new Promise<void>((resolve, reject) => {
      this.drained = () => {
        this.drained = undefined;
        if (this.canceled) reject(new MssqlDoubleError('RequestError', 'Canceled.', 'ECANCEL'));
        else resolve();
      };
      this.schedulePump();
    });
  }

  private schedulePump(): void {
    if (this.pumpScheduled || this.drained === undefined) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    if (this.drained === undefined) return;
    // A cancel drops the rows not read yet (tedious resumes a paused request to read past them).
    if (this.canceled) this.pending = [];
    let emitted = 0;
    while (!this.paused && this.pending.length > 0 && emitted < ROWS_PER_TURN && !this.canceled) {
      this.emit('row', this.pending.shift());
      emitted += 1;
    }
    if (this.pending.length === 0 || this.canceled) this.drained();
    else if (!this.paused) this.schedulePump();
  }
}

/** The mssql type of an input (`sql.BigInt`, or `sql.NVarChar(40)` called) as a PostgreSQL type. */
function parameterType(type: unknown): ParameterType {
  const driver = mssqlDriver();
  const factory = typeof type === 'function' ? type : (type as { type?: unknown } | null)?.type;
  if (factory === driver.BigInt) return 'bigint';
  if (factory === driver.Int) return 'integer';
  if (factory === driver.NVarChar || factory === driver.VarChar) return 'text';
  if (factory === driver.Bit) return 'boolean';
  if (factory === driver.DateTime2) return 'timestamp';
  if (factory === driver.Float) return 'double precision';
  throw new Error('the PostgreSQL model of SQL Server takes BigInt, Int, Bit, Float, DateTime2, NVarChar and VarChar inputs only');
}

/** What MssqlDatabase's bulk load uses of a tedious Connection (and mssql's Transaction.release of it). */
export interface BulkConnection {
  newBulkLoad(table: string, options: unknown, callback: (error: Error | null, rowCount?: number) => void): BulkLoadOnPostgres;
  execBulkLoad(bulk: BulkLoadOnPostgres, rows: AsyncIterable<CsvField[]>): void;
  giveBack(): void;
}

export interface BulkLoadOnPostgres {
  table: string;
  columns: string[];
  callback: (error: Error | null, rowCount?: number) => void;
  addColumn(name: string): void;
}

/** COPY's text format: \N for NULL, backslash escapes for the characters it separates by. */
function copyField(field: CsvField): string {
  if (field === null) return '\\N';
  return storedText(field).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

async function* copyLines(rows: AsyncIterable<CsvField[]>, counted: { rows: number }): AsyncGenerator<string> {
  for await (const row of rows) {
    counted.rows += 1;
    yield `${row.map(copyField).join('\t')}\n`;
  }
}

/** A tedious-shaped connection on `client` whose bulk load is a COPY FROM STDIN of the rows, as they stream in. */
function bulkConnection(client: PoolClient, giveBack: () => void): BulkConnection {
  return {
    newBulkLoad: (table, _options, callback) => {
      const columns: string[] = [];
      return { table, columns, callback, addColumn: (name) => columns.push(name) };
    },
    execBulkLoad: (bulk, rows) => {
      const table = bulk.table.startsWith('#') ? `pg_temp."${bulk.table}"` : bulk.table;
      const counted = { rows: 0 };
      const copy = client.query(copyFrom(`COPY ${table} (${bulk.columns.map((column) => `"${column}"`).join(', ')}) FROM STDIN`));
      pipeline(Readable.from(copyLines(rows, counted)), copy).then(
        () => bulk.callback(null, counted.rows),
        (error: unknown) => bulk.callback(requestError(error)),
      );
    },
    giveBack,
  };
}
