import { Portable, type TableDefinition } from '@svc/contracts';
import { MssqlPoolDouble, type MssqlRequestDouble, type MssqlTransactionDouble } from '@svc/sqlserver/common/testing';
import type { Request, Transaction } from 'mssql';
import { RowStreamAbandonedError, streamRows } from './row-stream';
import { UnpairedSurrogateError, readLayout, type ReadLayout } from './unpaired-surrogates';

const items: TableDefinition = {
  table: { schema: 'dbo', name: 'items' },
  columns: [
    { name: 'code', sourceType: 'nvarchar(10)', portableType: Portable.varchar(10), nullable: false },
    { name: 'name', sourceType: 'nvarchar(40)', portableType: Portable.varchar(40), nullable: true },
  ],
  primaryKey: ['code'],
} as TableDefinition;

/*
 * The transaction and request are mssql's as its source has them (see MssqlTransactionDouble): rollback() and
 * commit() are refused with EREQINPROG while the request holds the connection (node_modules/mssql/lib/base/
 * transaction.js, _rollback: "Can't rollback transaction. There is a request in progress."), and a cancelled
 * request reports ECANCEL, gives the connection back and only then emits 'done' (lib/tedious/request.js).
 */
async function open(pool = new MssqlPoolDouble(1), layout: ReadLayout = readLayout(items, 'snapshot')) {
  const transaction = await pool.transaction().begin();
  const request = transaction.request();
  const stream = streamRows(transaction as unknown as Transaction, request as unknown as Request, 'SELECT 1', layout);
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

/** An nchar/nvarchar value as tedious reads it: its UTF-16LE code units decoded as they are (value-parser.js readNChars, `buf.toString('ucs2', …)`). */
const nvarchar = (...codeUnits: number[]): string => Buffer.from(Uint16Array.from(codeUnits).buffer).toString('ucs2');

/*
 * nchar and nvarchar hold UTF-16 code units, and halves of pairs on their own: "The LEFT, RIGHT, SUBSTRING, STUFF, and
 * REVERSE functions may split any surrogate pairs" (Supplementary Characters, https://learn.microsoft.com/en-us/previous-versions/sql/sql-server-2008-r2/ms180942(v=sql.105)),
 * and NCHAR of 0 through 0xFFFF returns "only one character", a lone half too ("Do not construct a surrogate pair by using
 * NCHAR(<High surrogate>) + NCHAR(<Low Surrogate>)", NCHAR (Transact-SQL)). Before, UTF-8 made both halves below U+FFFD:
 * the two keys reached staging as one.
 */
describe('streamRows: a text holding half of a surrogate pair', () => {
  it("stops the read at the row, naming table, column and key columns: 'a' + NCHAR(0xD800) and 'a' + NCHAR(0xDBFF) are never written as one key", async () => {
    const { pool, request, transaction, stream } = await open();
    const text = readAll(stream.rows);
    request.sendRow([nvarchar(0x61, 0xd800), 'first']);
    request.sendRow([nvarchar(0x61, 0xdbff), 'second']);
    request.complete();
    await expect(text).rejects.toThrow(UnpairedSurrogateError);
    const refusal = await stream.finished.catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(UnpairedSurrogateError);
    expect(refusal).toMatchObject({ kind: 'invalid-data', serviceWorded: true, valueDetail: '[dbo].[items]: the row of key (code=a\\uD800); column code holds U+D800 unpaired' });
    const { message } = refusal as UnpairedSurrogateError;
    expect(message).toMatch(/^Source: \[dbo\]\.\[items\], row of key \(code\), column code holds half of a UTF-16 surrogate pair without the other half .*the table stops/);
    expect(message).not.toContain('a\uD800');
    expect(ended(transaction)).toEqual({ ended: 'rolled back', endings: [{ call: 'rollback', refused: null }] });
    expect(pool.inUse).toBe(0);
  });

  it('keeps a failure that comes before anyone reads (a lone half in the first row, a server error) for the reader, instead of an unhandled error event that ends the process', async () => {
    // Node emits 'error' on a destroyed stream on the next tick; with no listener yet, EventEmitter throws it (events,
    // "error events": "If an EventEmitter does not have at least one listener registered for the 'error' event, and an
    // 'error' event is emitted, the error is thrown"). The extractor reads the rows only after readSnapshot returns.
    const unhandled: unknown[] = [];
    const record = (error: unknown) => unhandled.push(error);
    process.prependListener('uncaughtException', record);
    try {
      for (const failing of ['lone half', 'server error'] as const) {
        const { pool, request, transaction, stream } = await open();
        if (failing === 'lone half') request.sendRow([nvarchar(0x61, 0xd800), 'first']);
        else request.serverError(new Error('deadlock victim'));
        for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
        request.complete();
        await expect(readAll(stream.rows)).rejects.toThrow(failing === 'lone half' ? UnpairedSurrogateError : Error);
        await expect(stream.finished).rejects.toThrow();
        expect(ended(transaction)).toEqual({ ended: 'rolled back', endings: [{ call: 'rollback', refused: null }] });
        expect(pool.inUse).toBe(0);
      }
    } finally {
      process.removeListener('uncaughtException', record);
    }
    expect(unhandled).toEqual([]);
  });

  it('refuses a lone low half in a change row, naming its column after the operation; keeps whole pairs as they are', async () => {
    const { request, stream } = await open(new MssqlPoolDouble(1), readLayout(items, 'changes'));
    const text = readAll(stream.rows);
    request.sendRow(['U', 'k1', nvarchar(0xd83d, 0xde00)]);
    request.sendRow(['I', 'k2', nvarchar(0xde00, 0xd83d)]);
    request.complete();
    await expect(text).rejects.toThrow('Source: [dbo].[items], row of key (code), column name holds half of a UTF-16 surrogate pair');
    await expect(stream.finished).rejects.toMatchObject({ valueDetail: '[dbo].[items]: the row of key (code=k2); column name holds U+DE00 unpaired' });
  });

  it('writes every row when no text holds a lone half', async () => {
    const { request, stream } = await open();
    const text = readAll(stream.rows);
    request.sendRow([nvarchar(0x61, 0xd83d, 0xde00), null]);
    request.complete();
    expect(await text).toBe('a😀,\n');
    expect(await stream.finished).toEqual({ rowCount: 1 });
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
