import { MssqlPoolDouble, type MssqlRequestDouble, type MssqlTransactionDouble } from '@svc/sqlserver/common/testing';
import type { Request, Transaction } from 'mssql';
import { RowStreamAbandonedError, streamRows } from './row-stream';

/*
 * The transaction and request are mssql's as its source has them (see MssqlTransactionDouble): rollback() and
 * commit() are refused with EREQINPROG while the request holds the connection (node_modules/mssql/lib/base/
 * transaction.js, _rollback: "Can't rollback transaction. There is a request in progress."), and a cancelled
 * request reports ECANCEL, gives the connection back and only then emits 'done' (lib/tedious/request.js).
 */
async function open(pool = new MssqlPoolDouble(1)) {
  const transaction = await pool.transaction().begin();
  const request = transaction.request();
  const stream = streamRows(transaction as unknown as Transaction, request as unknown as Request, 'SELECT 1');
  await holdingConnection(request);
  return { pool, request, transaction, stream };
}

/** The request has the transaction's connection (mssql lends it on the next turn of the event loop). */
async function holdingConnection(request: MssqlRequestDouble): Promise<void> {
  for (let turn = 0; !request.inProgress; turn += 1) {
    if (turn > 100) throw new Error('the request never got its connection');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function readAll(rows: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of rows) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** The consumer reads one chunk and stops, as a `for await` left early does. */
async function leave(rows: AsyncIterable<Buffer>): Promise<void> {
  const reader = rows[Symbol.asyncIterator]();
  await reader.next();
  await reader.return?.();
}

const ended = (transaction: MssqlTransactionDouble) => ({ ended: transaction.ended, endings: transaction.endings });

describe('streamRows: a SQL Server result streamed as CSV', () => {
  it('asks for array rows in stream mode, writes CSV and commits at the end', async () => {
    const { pool, request, transaction, stream } = await open();
    expect({ stream: request.stream, arrayRowMode: request.arrayRowMode, sql: request.sql }).toEqual({ stream: true, arrayRowMode: true, sql: 'SELECT 1' });
    const text = readAll(stream.rows);
    request.sendRow(['1', null, '']);
    request.sendRow(['2', 'a,b', 0.5]);
    request.complete();
    expect(await text).toBe('1,,""\n2,"a,b",0.5\n');
    expect(await stream.finished).toEqual({ rowCount: 2 });
    expect(ended(transaction)).toEqual({ ended: 'committed', endings: [{ call: 'commit', refused: null }] });
    expect(pool.inUse).toBe(0);
  });

  it('pauses the request while the consumer is behind, and resumes it when it reads', async () => {
    const { request, stream } = await open();
    const big = 'x'.repeat(40 * 1024);
    // Rows come as the driver sends them: until it is paused.
    let emitted = 0;
    while (!request.paused && emitted < 100) {
      request.sendRow([big]);
      emitted += 1;
    }
    expect(request.paused).toBe(true);
    expect(emitted).toBeLessThan(100);
    const reader = stream.rows[Symbol.asyncIterator]();
    await reader.next();
    expect(request.paused).toBe(false);
    await reader.return?.();
  });

  it('rolls back once the failed query has ended, and fails `finished` with its error', async () => {
    const { pool, request, transaction, stream } = await open();
    const text = readAll(stream.rows);
    // A server error comes as 'error' while the request still runs; the driver ends it afterwards.
    request.serverError(new Error('deadlock victim'));
    await expect(text).rejects.toThrow('deadlock victim');
    request.complete();
    await expect(stream.finished).rejects.toThrow('deadlock victim');
    expect(ended(transaction)).toEqual({ ended: 'rolled back', endings: [{ call: 'rollback', refused: null }] });
    expect(pool.inUse).toBe(0);
  });

  it('cancels the request when the consumer stops early, and rolls back once the cancel has ended it', async () => {
    const { pool, request, transaction, stream } = await open();
    request.sendRow(['1']);
    request.sendRow(['x'.repeat(70 * 1024)]);
    for await (const chunk of stream.rows) {
      expect(chunk.length).toBeGreaterThan(0);
      break;
    }
    await expect(stream.finished).rejects.toThrow(RowStreamAbandonedError);
    expect(request.canceled).toBe(true);
    expect(ended(transaction)).toEqual({ ended: 'rolled back', endings: [{ call: 'rollback', refused: null }] });
    expect(pool.inUse).toBe(0);
  });

  it('gives every connection back: streams abandoned on a pool of 4 leave none held, and a fifth read begins', async () => {
    const pool = new MssqlPoolDouble(4);
    for (let read = 0; read < 4; read += 1) {
      const { request, stream } = await open(pool);
      request.sendRow(['x'.repeat(70 * 1024)]);
      await leave(stream.rows);
      await expect(stream.finished).rejects.toThrow(RowStreamAbandonedError);
    }
    expect(pool.inUse).toBe(0);
    const fifth = pool.transaction().begin();
    expect(pool.waitingForConnection).toBe(0);
    await fifth;
  });

  it('does not roll back while the commit is under way when the consumer leaves after the last row', async () => {
    const { pool, request, transaction, stream } = await open();
    request.sendRow(['1']);
    request.complete();
    await leave(stream.rows);
    await expect(stream.finished).rejects.toThrow(RowStreamAbandonedError);
    expect(ended(transaction)).toEqual({ ended: 'committed', endings: [{ call: 'commit', refused: null }] });
    expect(pool.inUse).toBe(0);
  });
});

describe('the mssql transaction double keeps the driver rules the row stream depends on', () => {
  it('refuses a second request and an early rollback while a request holds the connection', async () => {
    const pool = new MssqlPoolDouble(1);
    const transaction = await pool.transaction().begin();
    const first = transaction.request();
    const running = first.query('SELECT 1');
    await holdingConnection(first);
    await expect(transaction.request().query('SELECT 2')).rejects.toMatchObject({ name: 'TransactionError', code: 'EREQINPROG' });
    await expect(transaction.rollback()).rejects.toMatchObject({ name: 'TransactionError', code: 'EREQINPROG' });
    first.complete();
    await running;
    await transaction.rollback();
    expect(pool.inUse).toBe(0);
  });
});
