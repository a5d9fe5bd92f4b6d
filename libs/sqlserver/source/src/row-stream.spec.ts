import { EventEmitter } from 'node:events';
import type { Request, Transaction } from 'mssql';
import { RowStreamAbandonedError, streamRows } from './row-stream';

/** An mssql request in stream mode, driven by the test: rows, done and error are emitted by hand. */
class FakeRequest extends EventEmitter {
  stream = false;
  arrayRowMode = false;
  paused = false;
  cancelled = false;
  sql = '';

  query(sql: string): Promise<void> {
    this.sql = sql;
    return Promise.resolve();
  }
  pause(): boolean {
    this.paused = true;
    return true;
  }
  resume(): boolean {
    this.paused = false;
    return true;
  }
  cancel(): boolean {
    this.cancelled = true;
    return true;
  }
}

class FakeTransaction {
  committed = false;
  rolledBack = false;
  commit(): Promise<void> {
    this.committed = true;
    return Promise.resolve();
  }
  rollback(): Promise<void> {
    this.rolledBack = true;
    return Promise.resolve();
  }
}

const open = () => {
  const request = new FakeRequest();
  const transaction = new FakeTransaction();
  const stream = streamRows(transaction as unknown as Transaction, request as unknown as Request, 'SELECT 1');
  return { request, transaction, stream };
};

async function readAll(rows: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of rows) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

describe('streamRows: a SQL Server result streamed as CSV', () => {
  it('asks for array rows in stream mode, writes CSV and commits at the end', async () => {
    const { request, transaction, stream } = open();
    expect({ stream: request.stream, arrayRowMode: request.arrayRowMode, sql: request.sql }).toEqual({ stream: true, arrayRowMode: true, sql: 'SELECT 1' });
    const text = readAll(stream.rows);
    request.emit('row', ['1', null, '']);
    request.emit('row', ['2', 'a,b', 0.5]);
    request.emit('done');
    expect(await text).toBe('1,,""\n2,"a,b",0.5\n');
    expect(await stream.finished).toEqual({ rowCount: 2 });
    expect(transaction.committed).toBe(true);
  });

  it('pauses the request while the consumer is behind, and resumes it when it reads', async () => {
    const { request, stream } = open();
    const big = 'x'.repeat(40 * 1024);
    // Rows come as the driver sends them: until it is paused.
    let emitted = 0;
    while (!request.paused && emitted < 100) {
      request.emit('row', [big]);
      emitted += 1;
    }
    expect(request.paused).toBe(true);
    expect(emitted).toBeLessThan(100);
    const reader = stream.rows[Symbol.asyncIterator]();
    await reader.next();
    expect(request.paused).toBe(false);
    await reader.return?.();
  });

  it('rolls back and fails `finished` when the query fails', async () => {
    const { request, transaction, stream } = open();
    const text = readAll(stream.rows);
    request.emit('error', new Error('deadlock victim'));
    await expect(text).rejects.toThrow('deadlock victim');
    await expect(stream.finished).rejects.toThrow('deadlock victim');
    expect(transaction.rolledBack).toBe(true);
    expect(transaction.committed).toBe(false);
  });

  it('cancels the request and rolls back when the consumer stops early', async () => {
    const { request, transaction, stream } = open();
    request.emit('row', ['1']);
    request.emit('row', ['x'.repeat(70 * 1024)]);
    for await (const chunk of stream.rows) {
      expect(chunk.length).toBeGreaterThan(0);
      break;
    }
    await expect(stream.finished).rejects.toThrow(RowStreamAbandonedError);
    expect(request.cancelled).toBe(true);
    expect(transaction.rolledBack).toBe(true);
  });
});
