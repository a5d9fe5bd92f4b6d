import type { ConnectionGate } from '@svc/engines';
import { gateMssqlPool } from './gated-pool';
import { connectSqlServer } from './tls-fallback';
import type { ConnectionPool, config as MssqlConfig, Request, Transaction } from 'mssql';
import type { Connection as TediousConnection } from 'tedious';
import { mssqlDriver, tediousDriver } from './mssql-driver';
import type { CsvField } from './csv-rows';
import type { TransactionOutcome, TsqlDatabase, TsqlParams, TsqlSession, TsqlValue } from './tsql-session';

/**
 * mssql lends a transaction's connection to one request at a time through these (its Request does the same
 * for `bulk`); they are not in its type declarations, so their presence is checked where they are used.
 */
interface ConnectionLender {
  acquire(request: Request, callback: (error: Error | null, connection: TediousConnection) => void): void;
  release(connection: TediousConnection): void;
}

/** A TsqlDatabase on an mssql pool, connected on first use (TLS 1.2+ first); a pool that failed to connect is forgotten. */
export class MssqlDatabase implements TsqlDatabase {
  private pool: Promise<ConnectionPool> | undefined;

  constructor(
    private readonly config: MssqlConfig,
    private readonly gate: ConnectionGate,
  ) {}

  async query<Row extends object>(text: string, params: TsqlParams = {}): Promise<Row[]> {
    return runQuery<Row>((await this.connected()).request(), text, params);
  }

  /** One transaction; inside `work` the pool gives nothing more (its gate refuses): it never waits holding a connection. */
  inTransaction<T>(work: (session: TsqlSession) => Promise<TransactionOutcome<T>>): Promise<T> {
    return this.gate.withLease(1, () => this.transactionOn(work));
  }

  private async transactionOn<T>(work: (session: TsqlSession) => Promise<TransactionOutcome<T>>): Promise<T> {
    const transaction = (await this.connected()).transaction();
    await transaction.begin(mssqlDriver().ISOLATION_LEVEL.READ_COMMITTED);
    let outcome: TransactionOutcome<T>;
    try {
      outcome = await work(new TransactionSession(transaction));
    } catch (error) {
      await transaction.rollback().catch(() => undefined);
      throw error;
    }
    if (outcome.commit) await transaction.commit();
    else await transaction.rollback();
    return outcome.result;
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await (await pool?.catch(() => undefined))?.close();
  }

  private connected(): Promise<ConnectionPool> {
    this.pool ??= connectSqlServer(this.config).then(
      (pool) => gateMssqlPool(pool, this.gate),
      (error: unknown) => {
        this.pool = undefined;
        throw error;
      },
    );
    return this.pool;
  }
}

class TransactionSession implements TsqlSession {
  constructor(private readonly transaction: Transaction) {}

  query<Row extends object>(text: string, params: TsqlParams = {}): Promise<Row[]> {
    return runQuery<Row>(this.transaction.request(), text, params);
  }

  /**
   * The driver's bulk load fed from an async iterable: tedious pulls rows as it writes packets, so a batch is
   * never held in memory (mssql's Request.bulk would take a whole Table of rows).
   */
  async bulkLoad(table: string, columns: readonly string[], rows: AsyncIterable<CsvField[]>): Promise<number> {
    const lender = this.transaction as unknown as Partial<ConnectionLender>;
    if (typeof lender.acquire !== 'function' || typeof lender.release !== 'function') {
      throw new Error('this mssql version does not lend a transaction its connection: bulk load is unavailable');
    }
    const request = this.transaction.request();
    const connection = await new Promise<TediousConnection>((resolve, reject) => {
      lender.acquire?.call(this.transaction, request, (error, acquired) => (error ? reject(error) : resolve(acquired)));
    });
    try {
      return await new Promise<number>((resolve, reject) => {
        const bulk = connection.newBulkLoad(table, { keepNulls: true }, (error, rowCount) => (error ? reject(error) : resolve(rowCount ?? 0)));
        for (const column of columns) bulk.addColumn(column, tediousDriver().TYPES.NVarChar, { nullable: true, length: Infinity });
        connection.execBulkLoad(bulk, rows);
      });
    } finally {
      lender.release?.call(this.transaction, connection);
    }
  }
}

/**
 * A statement with parameters goes through sp_executesql (Request.query); one without them as a plain batch
 * (Request.batch), so that a temporary table it creates belongs to the session and outlives the statement:
 * one created inside sp_executesql is dropped when sp_executesql returns.
 */
async function runQuery<Row extends object>(request: Request, text: string, params: TsqlParams): Promise<Row[]> {
  const entries = Object.entries(params);
  if (entries.length === 0) return (await request.batch<Row>(text)).recordset ?? [];
  for (const [name, value] of entries) bindParameter(request, name, value);
  return (await request.query<Row>(text)).recordset ?? [];
}

function bindParameter(request: Request, name: string, value: TsqlValue): void {
  const sql = mssqlDriver();
  if (value === null) request.input(name, sql.NVarChar(sql.MAX), null);
  else if (typeof value === 'string') request.input(name, sql.NVarChar(sql.MAX), value);
  else if (typeof value === 'boolean') request.input(name, sql.Bit, value);
  else if (value instanceof Date) request.input(name, sql.DateTime2(3), value);
  else {
    if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new RangeError(`parameter @${name} must be an integer, not ${value}`);
    // tedious takes bigint parameters as decimal text: a value above 2^53 keeps every digit.
    request.input(name, sql.BigInt, value.toString());
  }
}
