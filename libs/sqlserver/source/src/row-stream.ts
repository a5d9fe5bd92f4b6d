import { Readable } from 'node:stream';
import type { RowStream } from '@svc/engines';
import type { Request, Transaction } from 'mssql';
import { csvLine, type RowValue } from './csv';

/** CSV bytes gathered before they are handed on: one chunk per many small rows, not one per row. */
const CHUNK_BYTES = 64 * 1024;

export class RowStreamAbandonedError extends Error {
  constructor() {
    super('the row stream was closed before it was read to the end');
    this.name = 'RowStreamAbandonedError';
  }
}

/**
 * Streams a query's rows as CSV, from a request inside an open transaction: rows come as arrays
 * (`arrayRowMode`), the request pauses while the consumer is behind, so memory stays bounded whatever the
 * table's size. Read to the end, the transaction commits; on a failure, or when the consumer stops early,
 * the request is cancelled and the transaction rolled back. `finished` never goes unhandled.
 */
export function streamRows(transaction: Transaction, request: Request, sql: string): RowStream {
  request.stream = true;
  request.arrayRowMode = true;
  let rowCount = 0;
  let pending: string[] = [];
  let pendingBytes = 0;
  let done = false;
  let settle: { resolve: (value: { rowCount: number }) => void; reject: (error: Error) => void } | undefined;
  const finished = new Promise<{ rowCount: number }>((resolve, reject) => {
    settle = { resolve, reject };
  });
  finished.catch(() => undefined);

  const rollback = () => transaction.rollback().catch(() => undefined);
  const fail = (error: Error) => {
    if (done) return;
    done = true;
    request.cancel();
    void rollback();
    settle?.reject(error);
    rows.destroy(error);
  };
  const flush = (): boolean => {
    if (pending.length === 0) return true;
    const chunk = Buffer.from(pending.join(''), 'utf8');
    pending = [];
    pendingBytes = 0;
    return rows.push(chunk);
  };

  const rows = new Readable({
    read: () => request.resume(),
    destroy: (error, callback) => {
      // Node reports a `for await` left early as an AbortError.
      if (!done) fail(error === null || error.name === 'AbortError' ? new RowStreamAbandonedError() : error);
      callback(error);
    },
  });

  request.on('row', (row: RowValue[]) => {
    if (done) return;
    const line = csvLine(row);
    rowCount += 1;
    pending.push(line);
    pendingBytes += line.length;
    if (pendingBytes >= CHUNK_BYTES && !flush()) request.pause();
  });
  request.on('error', (error: Error) => fail(error));
  request.on('done', () => {
    if (done) return;
    flush();
    transaction.commit().then(
      () => {
        if (done) return;
        done = true;
        settle?.resolve({ rowCount });
        rows.push(null);
      },
      (error: unknown) => fail(error instanceof Error ? error : new Error(String(error))),
    );
  });
  // Stream mode reports through the events above; the promise only repeats them.
  Promise.resolve(request.query(sql)).catch(() => undefined);
  return { rows, finished };
}
