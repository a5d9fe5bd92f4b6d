import { EventEmitter } from 'node:events';

/**
 * mssql's transactions and requests as its source (node_modules/mssql 12, lib/base/transaction.js,
 * lib/base/request.js, lib/tedious/*.js) and tedious 19's (lib/connection.js) make them behave, for code
 * that must end a transaction on the connection it holds. The rules it keeps:
 *   - begin() takes a connection from the pool and keeps it until commit() or rollback() succeeds; a pool
 *     with every connection held makes begin() wait (tarn queues the acquire).
 *   - A transaction lends its connection to one request at a time (Transaction.acquire): another request's
 *     query fails with TransactionError EREQINPROG, "Can't acquire connection for the request. There is
 *     another request in progress."
 *   - commit() and rollback() fail with EREQINPROG ("Can't commit transaction. There is a request in
 *     progress." / "Can't rollback transaction. …") while a request holds the connection, and the
 *     connection stays with the transaction: nothing ends it.
 *   - A request in stream mode reports a server error with 'error' while it still runs (tedious/request.js
 *     handleError), and ends with 'done' after it has given the connection back (the tds.Request callback
 *     releases it, then base/request.js emits 'done', after an 'error' when the query failed).
 *   - cancel() of a running request sends an attention; once the server acknowledges it (tedious' SENT_ATTENTION
 *     state, later than the call) the request emits 'error' with code ECANCEL while it still holds the
 *     connection, then releases it, then emits 'done'. Rows not yet read are dropped: tedious resumes a paused
 *     request to read past them. A request cancelled before it got the connection fails with ECANCEL.
 * Rows, server errors and the end of a query are driven by the test (sendRow, serverError, complete).
 */
export class MssqlDoubleError extends Error {
  constructor(
    name: 'TransactionError' | 'RequestError',
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = name;
  }
}

/** The connection pool: `max` connections, held by begun transactions until they end. */
export class MssqlPoolDouble {
  inUse = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly max = 4) {}

  /** begin() calls waiting for a free connection. */
  get waitingForConnection(): number {
    return this.waiting.length;
  }

  transaction(): MssqlTransactionDouble {
    return new MssqlTransactionDouble(this);
  }

  acquire(): Promise<void> {
    if (this.inUse < this.max) {
      this.inUse += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.inUse -= 1;
  }
}

type Ending = 'committed' | 'rolled back';

export class MssqlTransactionDouble {
  /** How the transaction ended; null while it holds its connection (or before begin). */
  ended: Ending | null = null;
  /** Every commit() and rollback() call and what it answered. */
  readonly endings: { call: 'commit' | 'rollback'; refused: string | null }[] = [];
  private holdsConnection = false;
  private activeRequest: MssqlRequestDouble | null = null;

  constructor(private readonly pool: MssqlPoolDouble) {}

  async begin(): Promise<this> {
    if (this.holdsConnection) throw new MssqlDoubleError('TransactionError', 'Transaction has already begun.', 'EALREADYBEGUN');
    await this.pool.acquire();
    this.holdsConnection = true;
    return this;
  }

  request(): MssqlRequestDouble {
    return new MssqlRequestDouble(this);
  }

  commit(): Promise<void> {
    return this.end('commit', 'committed');
  }

  rollback(): Promise<void> {
    return this.end('rollback', 'rolled back');
  }

  /** Transaction.acquire: the connection for `request`, or why not. */
  lend(request: MssqlRequestDouble): MssqlDoubleError | null {
    if (!this.holdsConnection) return new MssqlDoubleError('TransactionError', 'Transaction has not begun. Call begin() first.', 'ENOTBEGUN');
    if (this.activeRequest) return new MssqlDoubleError('TransactionError', "Can't acquire connection for the request. There is another request in progress.", 'EREQINPROG');
    this.activeRequest = request;
    return null;
  }

  /** Transaction.release. */
  giveBack(request: MssqlRequestDouble): void {
    if (this.activeRequest === request) this.activeRequest = null;
  }

  private async end(call: 'commit' | 'rollback', ending: Ending): Promise<void> {
    // mssql answers on the next turn of the event loop (setImmediate in _commit/_rollback).
    await new Promise((resolve) => setImmediate(resolve));
    const refusal = !this.holdsConnection
      ? new MssqlDoubleError('TransactionError', 'Transaction has not begun. Call begin() first.', 'ENOTBEGUN')
      : this.activeRequest
        ? new MssqlDoubleError('TransactionError', `Can't ${call} transaction. There is a request in progress.`, 'EREQINPROG')
        : null;
    this.endings.push({ call, refused: refusal?.code ?? null });
    if (refusal) throw refusal;
    this.holdsConnection = false;
    this.ended = ending;
    this.pool.release();
  }
}

export class MssqlRequestDouble extends EventEmitter {
  stream = false;
  arrayRowMode = false;
  canceled = false;
  paused = false;
  sql: string | null = null;
  private running = false;
  private readonly heldRows: unknown[][] = [];
  private settle: { resolve: () => void; reject: (error: Error) => void } | undefined;
  private firstError: Error | undefined;

  constructor(private readonly transaction: MssqlTransactionDouble) {
    super();
  }

  /** Whether the request holds the transaction's connection. */
  get inProgress(): boolean {
    return this.running;
  }

  query(sql: string): Promise<void> {
    this.sql = sql;
    return new Promise<void>((resolve, reject) => {
      this.settle = { resolve, reject };
      setImmediate(() => {
        const refusal = this.canceled ? new MssqlDoubleError('RequestError', 'Canceled.', 'ECANCEL') : this.transaction.lend(this);
        if (refusal) {
          this.finish(refusal);
          return;
        }
        this.running = true;
      });
    });
  }

  pause(): boolean {
    if (!this.stream) return false;
    this.paused = true;
    return true;
  }

  resume(): boolean {
    if (!this.stream) return false;
    this.paused = false;
    while (!this.paused && this.heldRows.length > 0) this.emit('row', this.heldRows.shift());
    return true;
  }

  cancel(): boolean {
    this.canceled = true;
    if (!this.running) return true;
    // The attention is acknowledged later; rows still unread are dropped.
    setImmediate(() => {
      if (!this.running) return;
      this.heldRows.length = 0;
      this.paused = false;
      this.end(new MssqlDoubleError('RequestError', 'Canceled.', 'ECANCEL'));
    });
    return true;
  }

  /** The server sends a row: emitted now, or held while the request is paused. */
  sendRow(row: unknown[]): void {
    if (!this.running || this.canceled) return;
    if (this.paused) this.heldRows.push(row);
    else this.emit('row', row);
  }

  /** The server reports an error; the request runs on until complete() (or a cancel) ends it. */
  serverError(error: Error): void {
    if (!this.running) return;
    this.firstError ??= error;
    if (this.stream) this.emit('error', error);
  }

  /** The server ends the query (after every row it sent has been read). */
  complete(): void {
    if (!this.running) return;
    this.end(undefined);
  }

  private end(cancelled: MssqlDoubleError | undefined): void {
    // tedious/request.js: the tds.Request callback emits the cancel as 'error' first, then releases the connection.
    if (cancelled && this.stream) this.emit('error', cancelled);
    this.running = false;
    this.transaction.giveBack(this);
    this.finish(cancelled ?? this.firstError, true);
  }

  /**
   * base/request.js query(): in stream mode an error not reported yet goes out as 'error', then 'done' comes
   * and the promise resolves; otherwise the promise carries the outcome.
   */
  private finish(error: Error | undefined, reported = false): void {
    if (this.stream) {
      if (error && !reported) this.emit('error', error);
      this.emit('done', { rowsAffected: [] });
      this.settle?.resolve();
    } else if (error) this.settle?.reject(error);
    else this.settle?.resolve();
  }
}
